//! A tool's outcome as an MCP result: a success with its content, or an `isError` result whose
//! `_meta` names the [`ErrorKind`]. Failures that are not the tool's deliberate errors are
//! masked: the client sees that the call failed, stderr sees why.

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;

use crate::tool::output::{Outcome, Output};
use crate::{error::ErrorKind, tool::ToolInfo};

/// The protocol error (-32602) for a tool that does not exist.
pub(crate) fn unknown_tool(name: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("unknown tool '{name}'"),
        Some(json!({ "tool": name })),
    )
}

/// The result of a call of `tool` that ended with `outcome`.
pub(crate) fn tool_result(tool: &ToolInfo, outcome: Outcome) -> CallToolResult {
    match outcome {
        Outcome::Ok(Output::Empty) => CallToolResult::success(Vec::new()),
        Outcome::Ok(Output::Text(text)) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Outcome::Ok(Output::Json(value)) => structured(tool, value, Vec::new()),
        Outcome::Ok(Output::Linked(value, blocks)) => structured(tool, value, blocks),
        Outcome::Ok(Output::Content(content, structured)) => {
            let mut result = CallToolResult::success(content);
            result.structured_content = structured;
            result
        }
        Outcome::Ok(Output::Meta(output, meta)) => {
            let mut result = tool_result(tool, Outcome::Ok(*output));
            let into = result.meta.get_or_insert_with(rmcp::model::MetaObject::new);
            for (key, value) in meta.iter() {
                into.insert(key.clone(), value.clone());
            }
            result
        }
        Outcome::Ok(Output::Error(content, structured)) => {
            let mut result = crate::error::error_blocks(ErrorKind::Tool, content);
            result.structured_content = structured;
            result
        }
        // What only resources and prompts return: the macro never generates it for a tool.
        Outcome::Ok(
            Output::Bytes(_)
            | Output::Absent
            | Output::Contents(_)
            | Output::Dated(..)
            | Output::Messages(_),
        ) => error_result(
            ErrorKind::Failed,
            format!(
                "tool '{}' returned what only a resource or prompt can",
                tool.name()
            ),
        ),
        Outcome::Invalid(problems) => error_result(
            ErrorKind::InvalidArguments,
            format!("Invalid arguments for tool '{}': {problems}", tool.name()),
        ),
        Outcome::ToolError(message) => error_result(ErrorKind::Tool, message),
        Outcome::TimedOut(message) => error_result(ErrorKind::TimedOut, message),
        Outcome::Refused(message) => error_result(ErrorKind::Refused, message),
        // The pipeline answers these itself (`ask.rs`); one that got here lost its round.
        Outcome::InputRequired(_) => error_result(
            ErrorKind::Failed,
            format!("tool '{}' asked its client where it could not", tool.name()),
        ),
        Outcome::Failed(error) => {
            tracing::error!(tool = tool.name(), error, "tool failed");
            error_result(
                ErrorKind::Failed,
                format!("Error calling tool '{}'", tool.name()),
            )
        }
    }
}

/// A structured result: its JSON as text, then `more` blocks.
fn structured(
    tool: &ToolInfo,
    value: serde_json::Value,
    more: Vec<ContentBlock>,
) -> CallToolResult {
    let text = value.to_string();
    let structured = if tool.wrapped() {
        json!({ "result": value })
    } else {
        value
    };
    let mut content = vec![ContentBlock::text(text)];
    content.extend(more);
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(structured);
    result
}

pub(crate) use crate::error::error_result;

/// What a panic said, for stderr.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic payload".to_owned());
    format!("panicked: {text}")
}
