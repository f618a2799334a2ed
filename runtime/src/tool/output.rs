//! Turning what a tool function returns into an outcome: a value, a deliberate
//! [`ToolError`], or a failure to mask.

use std::any::Any;
use std::fmt::Display;

use serde::Serialize;
use serde_json::Value;

use crate::ToolError;

/// What a tool produced: on success, or an error result it made itself.
#[doc(hidden)]
#[derive(Debug)]
pub enum Output {
    /// `()`: no content.
    Empty,
    /// A `String`: one plain text block, no structured content.
    Text(String),
    /// Any other `Serialize` value: structured content plus its JSON as text.
    Json(Value),
    /// Content blocks in order, and structured content when a `ToolOutput` set it.
    Content(Vec<rmcp::model::ContentBlock>, Option<Value>),
    /// An error result's blocks and structured content (`ToolOutput::as_error`).
    Error(Vec<rmcp::model::ContentBlock>, Option<Value>),
    /// What it carries, with the result's `_meta` (`ToolOutput::meta`).
    Meta(Box<Output>, rmcp::model::MetaObject),
    /// A structured value (as `Json`) followed by more blocks (a [`Linked`](crate::tool::Linked)).
    Linked(Value, Vec<rmcp::model::ContentBlock>),
    /// A resource's bytes (a blob).
    Bytes(Vec<u8>),
    /// A resource that returned `None`: there is nothing at its URI.
    Absent,
    /// A resource's contents as made by a [`Resource`](crate::resource::Resource) by hand.
    Contents(Vec<rmcp::model::ResourceContents>),
    /// A resource's value and when it last changed (RFC 3339).
    Dated(Box<Output>, String),
    /// A prompt's messages.
    Messages(Vec<rmcp::model::PromptMessage>),
}

/// How a call ended.
#[doc(hidden)]
#[derive(Debug)]
pub enum Outcome {
    /// The tool succeeded.
    Ok(Output),
    /// The arguments were wrong; the text names each problem.
    Invalid(String),
    /// The tool returned a [`ToolError`]: its message goes to the client unchanged.
    ToolError(String),
    /// The call ran past its timeout; the text says so.
    TimedOut(String),
    /// The tool failed in another way: the client sees a masked message and this text goes
    /// to stderr only.
    Failed(String),
    /// The call was refused before the tool ran (its confirmation was declined, or could not
    /// be asked): the text says why.
    Refused(String),
    /// The run stopped for answers of the client (2026-07-28): these questions.
    InputRequired(Vec<crate::context::inquiry::Question>),
}

impl Outcome {
    /// A [`ToolError`] as the client gets it: its message, as a refusal when it is one.
    pub(crate) fn of_error(error: &ToolError) -> Outcome {
        let message = error.message().to_owned();
        if error.is_refused() {
            Outcome::Refused(message)
        } else {
            Outcome::ToolError(message)
        }
    }
}

/// A `()` return.
pub fn empty(_: ()) -> Outcome {
    Outcome::Ok(Output::Empty)
}

/// A `String` return.
pub fn text(value: String) -> Outcome {
    Outcome::Ok(Output::Text(value))
}

/// A structured return.
pub fn json<T: Serialize>(value: T) -> Outcome {
    match serde_json::to_value(&value) {
        // serde_json writes a float that is not finite as `null`: look again where it may be.
        Ok(json)
            if holds_null(&json)
                && let Some(float) = super::finite::non_finite(&value) =>
        {
            Outcome::Failed(format!(
                "the result holds the float {float}, which JSON cannot carry (its output schema \
                 expects a number)"
            ))
        }
        Ok(json) => Outcome::Ok(Output::Json(json)),
        Err(err) => Outcome::Failed(format!("the result could not be serialized: {err}")),
    }
}

fn holds_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(holds_null),
        Value::Object(map) => map.values().any(holds_null),
        _ => false,
    }
}

/// A `Result<T, E>` return: `Ok` goes through `ok`, a [`ToolError`] (also inside a boxed
/// `dyn Error`) is shown, any other `E` is masked.
pub fn result<T, E: Display + 'static>(value: Result<T, E>, ok: fn(T) -> Outcome) -> Outcome {
    match value {
        Ok(value) => ok(value),
        Err(err) => match tool_error_in(&err) {
            Some(tool_error) => Outcome::of_error(tool_error),
            None => Outcome::Failed(err.to_string()),
        },
    }
}

/// Finds a [`ToolError`] in `err`: the error itself, or the one a boxed error holds.
fn tool_error_in<E: 'static>(err: &E) -> Option<&ToolError> {
    let any: &dyn Any = err;
    if let Some(tool_error) = any.downcast_ref::<ToolError>() {
        return Some(tool_error);
    }
    if let Some(boxed) = any.downcast_ref::<Box<dyn std::error::Error + Send + Sync>>() {
        return boxed.downcast_ref::<ToolError>();
    }
    if let Some(boxed) = any.downcast_ref::<Box<dyn std::error::Error>>() {
        return boxed.downcast_ref::<ToolError>();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(outcome: Outcome) -> Option<String> {
        match outcome {
            Outcome::Failed(msg) => Some(msg),
            _ => None,
        }
    }

    #[test]
    fn tool_errors_are_found_directly_and_in_boxes() {
        let direct: Result<(), ToolError> = Err(ToolError::new("shown"));
        assert!(matches!(result(direct, empty), Outcome::ToolError(m) if m == "shown"));
        let boxed: Result<(), Box<dyn std::error::Error + Send + Sync>> =
            Err(ToolError::new("boxed").into());
        assert!(matches!(result(boxed, empty), Outcome::ToolError(m) if m == "boxed"));
        let other: Result<(), std::io::Error> = Err(std::io::Error::other("secret"));
        assert_eq!(failed(result(other, empty)).as_deref(), Some("secret"));
    }

    #[test]
    fn floats_that_are_not_finite_fail_instead_of_becoming_null() {
        let why = failed(json(vec![1.0, 1e308 * 10.0])).expect("a failure");
        assert!(why.contains("inf"), "{why}");
        assert!(matches!(json(Some(2.5)), Outcome::Ok(Output::Json(_))));
        assert!(matches!(
            json(None::<f64>),
            Outcome::Ok(Output::Json(Value::Null))
        ));
    }

    #[test]
    fn unserializable_values_fail_instead_of_panicking() {
        let mut map = std::collections::HashMap::new();
        map.insert((1, 2), 3);
        assert!(failed(json(map)).is_some());
    }
}
