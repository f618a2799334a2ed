//! What a call through the test client returned.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::fmt;

use rmcp::model::{
    CallToolResult, ContentBlock, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProgressToken, ServerNotification,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{error::ErrorKind, error::META_ERROR};

/// The result of one call, with the notifications the server sent for it.
///
/// ```
/// # use toolsmith::tool;
/// /// Add two numbers.
/// #[tool(read_only, closed_world)]
/// fn sum(a: i64, b: i64) -> i64 { a + b }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let tools = toolsmith::Registry::from_module(module_path!()).unwrap();
/// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(tools)).await.unwrap();
/// let outcome = client.call("sum", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
/// assert_eq!(outcome.data::<i64>().unwrap(), 5);
/// assert_eq!(outcome.text(), "5");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct CallOutcome {
    tool: String,
    result: CallToolResult,
    notices: Vec<ServerNotification>,
    progress_token: Option<ProgressToken>,
    wrapped: bool,
}

impl CallOutcome {
    pub(super) fn new(
        tool: &str,
        result: CallToolResult,
        notices: Vec<ServerNotification>,
        progress_token: Option<ProgressToken>,
        wrapped: bool,
    ) -> Self {
        CallOutcome {
            tool: tool.to_owned(),
            result,
            notices,
            progress_token,
            wrapped,
        }
    }

    /// The tool called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Whether the result is an error result (`isError: true`).
    pub fn is_error(&self) -> bool {
        self.result.is_error == Some(true)
    }

    /// The kind of an error result, from its `_meta`.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        let meta = self.result.meta.as_ref()?;
        ErrorKind::parse(meta.get(META_ERROR)?.as_str()?)
    }

    /// The text blocks, joined by newlines.
    pub fn text(&self) -> String {
        self.result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The content blocks, in order.
    pub fn content(&self) -> &[ContentBlock] {
        &self.result.content
    }

    /// The structured content, as sent (a non-object result is wrapped as
    /// `{"result": ...}`; see [`data`](Self::data)).
    pub fn structured(&self) -> Option<&Value> {
        self.result.structured_content.as_ref()
    }

    /// The whole MCP result.
    pub fn result(&self) -> &CallToolResult {
        &self.result
    }

    /// The structured content as a `T`, unwrapped from `{"result": ...}` when the tool wraps
    /// it. A mismatch names the tool and the JSON path.
    pub fn data<T: DeserializeOwned>(&self) -> Result<T, DataError> {
        let mut value = self.structured().cloned().ok_or_else(|| DataError {
            tool: self.tool.clone(),
            path: String::new(),
            message: "the result has no structured content".into(),
        })?;
        if self.wrapped
            && let Some(inner) = value.as_object_mut().and_then(|o| o.remove("result"))
        {
            value = inner;
        }
        serde_path_to_error::deserialize(value).map_err(|err| DataError {
            tool: self.tool.clone(),
            path: err.path().to_string(),
            message: err.into_inner().to_string(),
        })
    }

    /// The progress notifications of this call, in order (none unless the call asked for
    /// them with [`super::CallOptions::progress_token`]).
    pub fn progress(&self) -> Vec<&ProgressNotificationParam> {
        self.notices
            .iter()
            .filter_map(|n| match n {
                ServerNotification::ProgressNotification(p)
                    if Some(&p.params.progress_token) == self.progress_token.as_ref() =>
                {
                    Some(&p.params)
                }
                _ => None,
            })
            .collect()
    }

    /// The log messages this call sent (`ClientLog`), in order.
    pub fn logs(&self) -> Vec<&LoggingMessageNotificationParam> {
        self.notices
            .iter()
            .filter_map(|n| match n {
                ServerNotification::LoggingMessageNotification(m) => Some(&m.params),
                _ => None,
            })
            .collect()
    }
}

/// Structured content that does not match the type asked for.
///
/// ```
/// let err = toolsmith::testing::DataError { tool: "get_note".into(), path: "title".into(), message: "invalid type: integer `5`, expected a string".into() };
/// assert_eq!(err.to_string(), "tool 'get_note': structured content at `title`: invalid type: integer `5`, expected a string");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataError {
    /// The tool called.
    pub tool: String,
    /// Where in the structured content (`.` for the whole value).
    pub path: String,
    /// What did not match.
    pub message: String,
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "tool '{}': {}", self.tool, self.message)
        } else {
            write!(
                f,
                "tool '{}': structured content at `{}`: {}",
                self.tool, self.path, self.message
            )
        }
    }
}

impl std::error::Error for DataError {}
