//! Series a program records itself, rendered on `/metrics` after the server's own.

use std::sync::Arc;

use ::metrics::{Counter, Gauge, KeyName, Recorder};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle, PrometheusRecorder};

use super::{METADATA, key, names};

/// Counters and gauges a program keeps beside the server's own, served with them on
/// `GET /metrics` once given to [`Server::metrics_series`](crate::Server::metrics_series).
///
/// Cheap to clone: every clone records into the same series, so one set can be handed to
/// each part of a program (a gateway gives it to each upstream). Asking twice for a series
/// of one name and labels gives the same series. Labels are the program's words, never a
/// request's: each value makes a series that lives as long as the server.
///
/// A name the server records itself (`toolsmith_tool_calls_total`, any `mcp_server_*`), or
/// one Prometheus does not accept, is refused: an error is logged and the handle counts
/// nothing.
///
/// ```
/// use toolsmith::metrics::Series;
///
/// let series = Series::new();
/// let opened = series.counter(
///     "myapp_sessions_opened_total",
///     "Sessions opened, by backend.",
///     &[("backend", "billing")],
/// );
/// opened.increment(2);
/// let text = series.render();
/// assert!(text.contains(r#"myapp_sessions_opened_total{backend="billing"} 2"#));
/// assert!(text.contains("# HELP myapp_sessions_opened_total Sessions opened, by backend."));
///
/// // The server's own names stay the server's.
/// series.counter("toolsmith_tool_calls_total", "mine", &[]).increment(1);
/// assert!(!series.render().contains("toolsmith_tool_calls_total"));
/// ```
#[derive(Clone)]
pub struct Series {
    inner: Arc<Recorded>,
}

struct Recorded {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
}

impl Series {
    /// An empty set of series.
    pub fn new() -> Series {
        let recorder = PrometheusBuilder::new().build_recorder();
        Series {
            inner: Arc::new(Recorded {
                handle: recorder.handle(),
                recorder,
            }),
        }
    }

    /// The counter `name` with `labels`, its `# HELP` line `help`.
    pub fn counter(
        &self,
        name: &'static str,
        help: &'static str,
        labels: &[(&'static str, &str)],
    ) -> Counter {
        if !self.allowed(name) {
            return Counter::noop();
        }
        let recorder = &self.inner.recorder;
        recorder.describe_counter(KeyName::from_const_str(name), None, help.into());
        recorder.register_counter(&key(name, labels), &METADATA)
    }

    /// The gauge `name` with `labels`, its `# HELP` line `help`.
    pub fn gauge(
        &self,
        name: &'static str,
        help: &'static str,
        labels: &[(&'static str, &str)],
    ) -> Gauge {
        if !self.allowed(name) {
            return Gauge::noop();
        }
        let recorder = &self.inner.recorder;
        recorder.describe_gauge(KeyName::from_const_str(name), None, help.into());
        recorder.register_gauge(&key(name, labels), &METADATA)
    }

    /// Every series, in Prometheus' text format (as `/metrics` shows them).
    pub fn render(&self) -> String {
        self.inner.handle.render()
    }

    /// Whether `name` may be the program's: a Prometheus name the server does not use.
    fn allowed(&self, name: &str) -> bool {
        let valid = name
            .chars()
            .enumerate()
            .all(|(i, c)| c.is_ascii_alphabetic() || c == '_' || (i > 0 && c.is_ascii_digit()))
            && !name.is_empty();
        if !valid {
            tracing::error!(
                name,
                "a metric's name is letters, digits and `_`, not starting with a digit: this series counts nothing"
            );
            return false;
        }
        if names::is_servers(name) {
            tracing::error!(
                name,
                "the server records a metric of this name itself: give yours another name (this series counts nothing)"
            );
            return false;
        }
        true
    }
}

impl Default for Series {
    fn default() -> Series {
        Series::new()
    }
}

/// Nothing of its series: they are many, and `render` shows them.
impl std::fmt::Debug for Series {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Series").finish_non_exhaustive()
    }
}
