//! Step 6 of the call pipeline: the per-call debug line, and with the features, the call's
//! metrics and the end of its span.

use std::time::Instant;

use rmcp::model::CallToolResponse;

use super::{Answer, Pipeline, Way};

/// Step 6: the per-call debug line, and with metrics, the call counted and timed (by the
/// tool's registered name: a name the registry lacks counts as `unknown`). The clock is read
/// only when one of them is wanted.
pub(super) struct CallLog {
    way: Way,
    start: Option<Instant>,
    #[cfg(feature = "metrics")]
    timer: Option<crate::metrics::CallTimer>,
    #[cfg(feature = "otel")]
    span: tracing::Span,
}

impl CallLog {
    pub(super) fn start(
        way: Way,
        pipeline: &Pipeline,
        #[cfg(feature = "otel")] span: tracing::Span,
    ) -> Self {
        let start = tracing::enabled!(tracing::Level::DEBUG).then(Instant::now);
        #[cfg(not(feature = "metrics"))]
        let _ = pipeline;
        CallLog {
            way,
            start,
            #[cfg(feature = "metrics")]
            timer: pipeline.metrics.as_ref().map(|m| m.call_started()),
            #[cfg(feature = "otel")]
            span,
        }
    }

    /// A log that writes nothing (another step writes the call's line).
    pub(super) fn silent() -> Self {
        CallLog {
            way: Way::Local,
            start: None,
            #[cfg(feature = "metrics")]
            timer: None,
            #[cfg(feature = "otel")]
            span: tracing::Span::none(),
        }
    }

    pub(super) fn finish(&self, tool: &str, answer: &Answer) {
        #[cfg(any(feature = "metrics", feature = "otel"))]
        let outcome = crate::outcome::CallOutcome::of(answer);
        #[cfg(feature = "metrics")]
        if let Some(timer) = &self.timer {
            timer.finish(tool, outcome);
        }
        #[cfg(feature = "otel")]
        crate::trace::finish_call(&self.span, outcome);
        let Some(start) = self.start else {
            return;
        };
        let outcome = match answer {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => "error",
            Ok(CallToolResponse::Complete(_)) => "ok",
            Ok(CallToolResponse::InputRequired(_)) => "input_required",
            Ok(CallToolResponse::Task(_)) => "task",
            Ok(_) => "other",
            Err(_) => "protocol_error",
        };
        tracing::debug!(
            tool,
            way = %self.way,
            fast = self.way.fast(),
            outcome,
            duration_us = start.elapsed().as_micros() as u64,
            "tools/call"
        );
    }
}
