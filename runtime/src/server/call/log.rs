//! Step 6 of the pipeline: the per-request debug line of a tool call, a read or a prompt,
//! and with the features, a tool call's metrics and the end of the request's span.

use std::time::Instant;

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, GetPromptResult, ReadResourceResult};

use super::{CallReply, Pipeline, Way};
use crate::outcome::OutcomeLabel;

/// Step 6: the per-request debug line, and with metrics, a tool call counted and timed (by
/// the tool's registered name: a name the registry lacks counts as `unknown`). The clock is
/// read only when one of them is wanted.
pub(super) struct CallLog {
    way: Way,
    /// `tools/call`, `resources/read`, `prompts/get`.
    method: &'static str,
    start: Option<Instant>,
    timer: Option<crate::metrics::CallTimer>,
    /// The request as OpenTelemetry's MCP metrics label it: how it came, at which revision.
    operation: Option<crate::metrics::Measured>,
    /// The request's span (none when it is not traced; nothing without `otel`).
    span: crate::trace::CallSpan,
}

/// How an answer is logged: its outcome, and the word of the debug line.
pub(super) trait Logged {
    fn outcome(&self) -> OutcomeLabel;

    /// How it ended, as OpenTelemetry's `error.type` says.
    fn failure(&self) -> crate::metrics::Failure;

    fn word(&self) -> &'static str;
}

impl Logged for CallReply {
    fn outcome(&self) -> OutcomeLabel {
        OutcomeLabel::of(self)
    }

    fn failure(&self) -> crate::metrics::Failure {
        use crate::metrics::Failure;
        match self {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                Failure::Tool
            }
            Ok(_) => Failure::None,
            Err(error) => Failure::Code(error.code.0),
        }
    }

    fn word(&self) -> &'static str {
        match self {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => "error",
            Ok(CallToolResponse::Complete(_)) => "ok",
            Ok(CallToolResponse::InputRequired(_)) => "input_required",
            Ok(CallToolResponse::Task(_)) => "task",
            Ok(_) => "other",
            Err(_) => "protocol_error",
        }
    }
}

/// A read's or a prompt's answer: its result, or the protocol error it ended with.
macro_rules! logged_result {
    ($($result:ty),*) => {$(
        impl Logged for Result<$result, ErrorData> {
            fn outcome(&self) -> OutcomeLabel {
                match self {
                    Ok(_) => OutcomeLabel::Ok,
                    Err(error) => OutcomeLabel::of_error(error),
                }
            }

            fn failure(&self) -> crate::metrics::Failure {
                match self {
                    Ok(_) => crate::metrics::Failure::None,
                    Err(error) => crate::metrics::Failure::Code(error.code.0),
                }
            }

            fn word(&self) -> &'static str {
                match self {
                    Ok(_) => "ok",
                    Err(_) => "protocol_error",
                }
            }
        }
    )*};
}

logged_result!(ReadResourceResult, GetPromptResult);

impl CallLog {
    /// The log of a `method` request that came in `way`; a tool call's is metered.
    pub(super) fn start(
        way: Way,
        method: &'static str,
        pipeline: &Pipeline,
        span: crate::trace::CallSpan,
    ) -> Self {
        let start = tracing::enabled!(tracing::Level::DEBUG).then(Instant::now);
        CallLog {
            way,
            method,
            start,
            timer: pipeline
                .metrics
                .as_ref()
                .filter(|_| method == "tools/call")
                .map(|m| m.call_started()),
            operation: None,
            span,
        }
    }

    /// The log of a request that came as `setup` says: measured as an MCP operation, when
    /// the server has metrics and the request came over a transport.
    pub(super) fn of(self, pipeline: &Pipeline, setup: &crate::request::CallSetup) -> Self {
        let mut log = self;
        if let (Some(metrics), Some(transport)) = (&pipeline.metrics, setup.transport) {
            let timed = log.timer.is_some();
            let version = setup.version.as_ref();
            log.operation = crate::metrics::Measured::start(metrics, timed, transport, version);
        }
        log
    }

    /// A log that writes nothing (another step writes the call's line).
    pub(super) fn silent() -> Self {
        CallLog {
            way: Way::Local,
            method: "",
            start: None,
            timer: None,
            operation: None,
            span: crate::trace::CallSpan::none(),
        }
    }

    /// The request's span (`Span::none()` when it is not traced).
    pub(super) fn span(&self) -> &tracing::Span {
        self.span.span()
    }

    /// The request's span to record into (`Span::none()` when it is not traced).
    pub(super) fn traced(&self) -> tracing::Span {
        self.span.span().clone()
    }

    /// The request of `name` ended with `answer`.
    pub(super) fn finish(&self, name: &str, answer: &impl Logged) {
        let op = self
            .operation
            .as_ref()
            .map(|measured| measured.operation(self.method, answer.failure()));
        if let Some(timer) = &self.timer {
            timer.finish(name, answer.outcome(), op);
        } else if let (Some(op), Some(measured)) = (op, &self.operation) {
            measured.record(op);
        }
        crate::trace::finish_call(self.span.span(), || answer.outcome());
        let Some(start) = self.start else {
            return;
        };
        tracing::debug!(
            name,
            way = %self.way,
            fast = self.way.fast(),
            outcome = answer.word(),
            duration_us = start.elapsed().as_micros() as u64,
            "{}",
            self.method
        );
    }
}
