//! How a call ended, as metrics label it (`outcome`) and traces record it
//! (`toolsmith.outcome`): one reading of an answer for both.

use rmcp::model::{CallToolResponse, ErrorData};

use crate::{ErrorKind, META_ERROR};

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallOutcome {
    /// A result that is not an error.
    Ok,
    /// The tool returned its own error.
    Tool,
    /// The arguments were rejected before the tool ran.
    InvalidArguments,
    /// The tool failed otherwise, panicked, or was cancelled.
    Failed,
    /// A policy, a layer or the user refused it.
    Refused,
    /// It ran past its timeout.
    TimedOut,
    /// It asks its client (2026-07-28: `input_required`), to be retried with the answers.
    InputRequired,
    /// It goes on as a task.
    Task,
    /// A JSON-RPC error, such as an unknown tool or a scope the token lacks.
    ProtocolError,
}

impl CallOutcome {
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(crate) const ALL: [CallOutcome; 9] = [
        CallOutcome::Ok,
        CallOutcome::Tool,
        CallOutcome::InvalidArguments,
        CallOutcome::Failed,
        CallOutcome::Refused,
        CallOutcome::TimedOut,
        CallOutcome::InputRequired,
        CallOutcome::Task,
        CallOutcome::ProtocolError,
    ];

    /// Its name, as a label or an attribute.
    #[cfg_attr(not(any(feature = "metrics", feature = "otel")), allow(dead_code))]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::Tool => "tool_error",
            CallOutcome::InvalidArguments => "invalid_arguments",
            CallOutcome::Failed => "failed",
            CallOutcome::Refused => "refused",
            CallOutcome::TimedOut => "timed_out",
            CallOutcome::InputRequired => "input_required",
            CallOutcome::Task => "task",
            CallOutcome::ProtocolError => "protocol_error",
        }
    }

    /// The outcome of a call answered with `answer` (an error result's kind is in its
    /// `_meta`; one without a kind is the tool's own).
    pub(crate) fn of(answer: &Result<CallToolResponse, ErrorData>) -> CallOutcome {
        match answer {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                CallOutcome::of_kind(result.meta.as_deref(), CallOutcome::Tool)
            }
            Ok(CallToolResponse::Complete(_)) => CallOutcome::Ok,
            Ok(CallToolResponse::InputRequired(_)) => CallOutcome::InputRequired,
            Ok(CallToolResponse::Task(_)) => CallOutcome::Task,
            // A response kind of a later revision: counted as what it is not, an error.
            Ok(_) => CallOutcome::ProtocolError,
            Err(_) => CallOutcome::ProtocolError,
        }
    }

    /// The outcome of a read or a prompt answered with the protocol error `error`: the kind
    /// its data names (it failed, timed out or was refused), else a protocol error.
    pub(crate) fn of_error(error: &ErrorData) -> CallOutcome {
        let data = error.data.as_ref().and_then(|data| data.as_object());
        CallOutcome::of_kind(data, CallOutcome::ProtocolError)
    }

    /// The outcome of the [`ErrorKind`] `object` names (under [`META_ERROR`]), or `none`.
    fn of_kind(object: Option<&serde_json::Map<String, serde_json::Value>>, none: Self) -> Self {
        let kind = object
            .and_then(|object| object.get(META_ERROR))
            .and_then(|kind| kind.as_str())
            .and_then(ErrorKind::parse);
        match kind {
            Some(ErrorKind::InvalidArguments) => CallOutcome::InvalidArguments,
            Some(ErrorKind::Failed) => CallOutcome::Failed,
            Some(ErrorKind::Refused) => CallOutcome::Refused,
            Some(ErrorKind::TimedOut) => CallOutcome::TimedOut,
            Some(ErrorKind::Tool) => CallOutcome::Tool,
            None => none,
        }
    }
}
