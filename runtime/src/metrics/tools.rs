//! Each tool's own series: its calls by outcome, and its MCP operation histograms (their
//! durations); and the timer of a call in flight.

use std::sync::Arc;
use std::time::Instant;

use ::metrics::Counter;
use metrics_exporter_prometheus::PrometheusRecorder;

use super::names::CALLS;
use super::{Inner, Metrics, Operation, OutcomeLabel, counter, operations, with_category};

impl Inner {
    /// `f` of the series of `tool`: a registered tool's, one added while serving, or
    /// `unknown`'s.
    pub(super) fn with_series<R>(&self, tool: &str, f: impl FnOnce(&ToolSeries) -> R) -> R {
        if let Some(series) = self.tools.get(tool) {
            return f(series);
        }
        match self.added(tool) {
            Some(series) => f(&series),
            None => f(&self.unknown),
        }
    }

    /// The series of `tool`, a tool added while serving (made on its first call); `None`
    /// for a name the server does not have.
    fn added(&self, tool: &str) -> Option<Arc<ToolSeries>> {
        let known = self.known.as_ref()?;
        let mut added = self.added.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(series) = added.get(tool) {
            return Some(series.clone());
        }
        let category = known(tool)?;
        let series = Arc::new(ToolSeries::new(&self.recorder, tool, category.as_deref()));
        added.insert(Arc::from(tool), series.clone());
        Some(series)
    }
}

/// One tool's series: a counter per outcome, its duration histogram, and its calls'
/// MCP operation histograms (made on first use).
pub(super) struct ToolSeries {
    pub(super) name: Arc<str>,
    pub(super) calls: [Counter; OutcomeLabel::ALL.len()],
    pub(super) operations: operations::Operations,
}

impl ToolSeries {
    /// The series of `tool` (of `category`, if it has one), registered with `recorder`.
    pub(super) fn new(
        recorder: &PrometheusRecorder,
        tool: &str,
        category: Option<&str>,
    ) -> ToolSeries {
        ToolSeries {
            name: tool.into(),
            operations: operations::Operations::of_a_tool(),
            calls: OutcomeLabel::ALL.map(|outcome| {
                let labels = with_category(
                    vec![("tool", tool), ("outcome", outcome.as_str())],
                    category,
                );
                counter(recorder, CALLS, &labels)
            }),
        }
    }
}

/// One call in flight: its clock, and its place in the in-flight gauge.
pub(crate) struct CallTimer {
    pub(super) metrics: Metrics,
    pub(super) start: Instant,
}

impl CallTimer {
    /// The call of `tool` ended with `outcome`; `op` is how it came (an MCP operation, when
    /// it came over a transport), counted in the same lookup of the tool's series.
    pub(crate) fn finish(&self, tool: &str, outcome: OutcomeLabel, op: Option<Operation<'_>>) {
        let inner = &self.metrics.inner;
        let seconds = self.start.elapsed().as_secs_f64();
        inner.with_series(tool, |series| {
            series.calls[outcome as usize].increment(1);
            if let Some(op) = op {
                series
                    .operations
                    .record(&inner.recorder, op, Some(&series.name), seconds);
            }
        });
    }
}

impl Drop for CallTimer {
    fn drop(&mut self) {
        self.metrics.inner.in_flight.decrement(1.0);
    }
}
