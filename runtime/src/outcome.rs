//! How a call ended, as metrics label it (`outcome`, OpenTelemetry's `error.type`) and
//! traces record it (`toolsmith.outcome`): one reading of an answer for both, with or without
//! the features that record it.

use rmcp::model::{CallToolResponse, ErrorData};

use crate::{error::ErrorKind, error::META_ERROR};

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OutcomeLabel {
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

impl OutcomeLabel {
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(crate) const ALL: [OutcomeLabel; 9] = [
        OutcomeLabel::Ok,
        OutcomeLabel::Tool,
        OutcomeLabel::InvalidArguments,
        OutcomeLabel::Failed,
        OutcomeLabel::Refused,
        OutcomeLabel::TimedOut,
        OutcomeLabel::InputRequired,
        OutcomeLabel::Task,
        OutcomeLabel::ProtocolError,
    ];

    /// Its name, as a label or an attribute.
    #[cfg_attr(not(any(feature = "metrics", feature = "otel")), allow(dead_code))]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            OutcomeLabel::Ok => "ok",
            OutcomeLabel::Tool => "tool_error",
            OutcomeLabel::InvalidArguments => "invalid_arguments",
            OutcomeLabel::Failed => "failed",
            OutcomeLabel::Refused => "refused",
            OutcomeLabel::TimedOut => "timed_out",
            OutcomeLabel::InputRequired => "input_required",
            OutcomeLabel::Task => "task",
            OutcomeLabel::ProtocolError => "protocol_error",
        }
    }

    /// The outcome of a call answered with `answer` (an error result's kind is in its
    /// `_meta`; one without a kind is the tool's own).
    pub(crate) fn of(answer: &Result<CallToolResponse, ErrorData>) -> OutcomeLabel {
        match answer {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                OutcomeLabel::of_kind(result.meta.as_deref(), OutcomeLabel::Tool)
            }
            Ok(CallToolResponse::Complete(_)) => OutcomeLabel::Ok,
            Ok(CallToolResponse::InputRequired(_)) => OutcomeLabel::InputRequired,
            Ok(CallToolResponse::Task(_)) => OutcomeLabel::Task,
            // A response kind of a later revision: counted as what it is not, an error.
            Ok(_) => OutcomeLabel::ProtocolError,
            Err(_) => OutcomeLabel::ProtocolError,
        }
    }

    /// The outcome of a read or a prompt answered with the protocol error `error`: the kind
    /// its data names (it failed, timed out or was refused), else a protocol error.
    pub(crate) fn of_error(error: &ErrorData) -> OutcomeLabel {
        let data = error.data.as_ref().and_then(|data| data.as_object());
        OutcomeLabel::of_kind(data, OutcomeLabel::ProtocolError)
    }

    /// The outcome of the [`ErrorKind`] `object` names (under [`META_ERROR`]), or `none`.
    fn of_kind(object: Option<&serde_json::Map<String, serde_json::Value>>, none: Self) -> Self {
        let kind = object
            .and_then(|object| object.get(META_ERROR))
            .and_then(|kind| kind.as_str())
            .and_then(ErrorKind::parse);
        match kind {
            Some(ErrorKind::InvalidArguments) => OutcomeLabel::InvalidArguments,
            Some(ErrorKind::Failed) => OutcomeLabel::Failed,
            Some(ErrorKind::Refused) => OutcomeLabel::Refused,
            Some(ErrorKind::TimedOut) => OutcomeLabel::TimedOut,
            Some(ErrorKind::Tool) => OutcomeLabel::Tool,
            None => none,
        }
    }
}

/// How a request ended, as OpenTelemetry's `error.type` says: not at all (a result), a tool's
/// error result (`tool_error`), or a JSON-RPC error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    None,
    Tool,
    Code(i32),
}

/// Why authorization refused a request: its `reason` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AuthRefusal {
    /// No bearer token (401).
    NoToken,
    /// A token that does not verify: signature, issuer, audience, expiry, type (401).
    InvalidToken,
    /// A valid token without the scope the request needs (403).
    InsufficientScope,
}

#[cfg_attr(not(feature = "metrics"), allow(dead_code))]
impl AuthRefusal {
    pub(crate) const ALL: [AuthRefusal; 3] = [
        AuthRefusal::NoToken,
        AuthRefusal::InvalidToken,
        AuthRefusal::InsufficientScope,
    ];

    /// The label value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AuthRefusal::NoToken => "no_token",
            AuthRefusal::InvalidToken => "invalid_token",
            AuthRefusal::InsufficientScope => "insufficient_scope",
        }
    }
}
