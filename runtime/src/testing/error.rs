//! How a call through the test client can fail.

use std::fmt;
use std::time::Duration;

use super::CallOutcome;
use crate::error::ErrorKind;

/// Why a call did not succeed.
///
/// ```
/// use toolsmith::error::ErrorKind;
/// use toolsmith::testing::CallError;
///
/// let err = CallError::Tool { tool: "get_note".into(), message: "No note with id 99.".into(), kind: ErrorKind::Tool };
/// assert_eq!(err.to_string(), "tool 'get_note' answered with an error (tool): No note with id 99.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError {
    /// The call was answered with an error result (`isError: true`).
    Tool {
        /// The tool called.
        tool: String,
        /// The error result's text.
        message: String,
        /// Which kind of error (from the result's `_meta`, see [`crate::error::META_ERROR`]).
        kind: ErrorKind,
    },
    /// The request was answered with a JSON-RPC error (an unknown tool: `-32602`).
    Protocol {
        /// The JSON-RPC error code.
        code: i32,
        /// Its message.
        message: String,
    },
    /// No answer came within the call's timeout ([`super::CallOptions::timeout`]); the
    /// client cancelled the call.
    Timeout {
        /// The tool called.
        tool: String,
        /// The timeout.
        after: Duration,
    },
    /// The server ended before it answered.
    Closed {
        /// The tool called.
        tool: String,
    },
}

impl CallError {
    /// The error for an error result, `None` for a success.
    pub(super) fn from_outcome(outcome: &CallOutcome) -> Option<CallError> {
        if !outcome.is_error() {
            return None;
        }
        Some(CallError::Tool {
            tool: outcome.tool().to_owned(),
            message: outcome.text(),
            kind: outcome.error_kind().unwrap_or(ErrorKind::Tool),
        })
    }

    /// The message: the error result's text, or the protocol error's message.
    ///
    /// ```
    /// let err = toolsmith::testing::CallError::Protocol { code: -32602, message: "unknown tool 'x'".into() };
    /// assert_eq!(err.message(), "unknown tool 'x'");
    /// ```
    pub fn message(&self) -> String {
        match self {
            CallError::Tool { message, .. } | CallError::Protocol { message, .. } => {
                message.clone()
            }
            CallError::Timeout { tool, after } => {
                format!("tool '{tool}' gave no answer within {after:?}")
            }
            CallError::Closed { tool } => format!("the server ended before '{tool}' answered"),
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Tool {
                tool,
                message,
                kind,
            } => write!(
                f,
                "tool '{tool}' answered with an error ({kind}): {message}"
            ),
            CallError::Protocol { code, message } => {
                write!(
                    f,
                    "the server answered with JSON-RPC error {code}: {message}"
                )
            }
            CallError::Timeout { .. } | CallError::Closed { .. } => f.write_str(&self.message()),
        }
    }
}

impl std::error::Error for CallError {}
