//! Running one `tools/call`: decode the arguments, run the tool (sync ones off the
//! reactor), turn its outcome into an MCP result. Panics and unexpected errors are masked.

use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::json;

use crate::ToolInfo;
use crate::args::Arguments;
use crate::def::Invocation;
use crate::output::{Outcome, Output};

/// The protocol error (-32602) for a tool that does not exist.
pub(crate) fn unknown_tool(name: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("unknown tool '{name}'"),
        Some(json!({ "tool": name })),
    )
}

/// Runs one call of `tool`: every failure is an `isError` result.
pub(crate) async fn run(tool: &ToolInfo, arguments: Option<JsonObject>) -> CallToolResult {
    let def = tool.def();
    let args = Arguments::new(arguments, def.params, tool.expected());
    let invocation = match std::panic::catch_unwind(AssertUnwindSafe(|| (def.invoke)(args))) {
        Ok(invocation) => invocation,
        Err(panic) => return masked(tool, &panic_message(&*panic)),
    };
    let outcome = match invocation {
        Invocation::Invalid(problems) => {
            return error_result(format!(
                "Invalid arguments for tool '{}': {problems}",
                tool.name()
            ));
        }
        Invocation::Blocking(body) => match tokio::task::spawn_blocking(body).await {
            Ok(outcome) => outcome,
            Err(err) if err.is_panic() => Outcome::Failed(panic_message(&*err.into_panic())),
            Err(err) => Outcome::Failed(err.to_string()),
        },
        Invocation::Async(body) => match AssertUnwindSafe(body).catch_unwind().await {
            Ok(outcome) => outcome,
            Err(panic) => Outcome::Failed(panic_message(&*panic)),
        },
    };
    into_result(tool, outcome)
}

fn into_result(tool: &ToolInfo, outcome: Outcome) -> CallToolResult {
    match outcome {
        Outcome::Ok(Output::Empty) => CallToolResult::success(Vec::new()),
        Outcome::Ok(Output::Text(text)) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Outcome::Ok(Output::Json(value)) => {
            let text = value.to_string();
            let structured = if tool.wrapped() {
                json!({ "result": value })
            } else {
                value
            };
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(structured);
            result
        }
        Outcome::ToolError(message) => error_result(message),
        Outcome::Failed(error) => masked(tool, &error),
    }
}

/// The result a client sees for an unexpected failure; the real error goes to stderr.
fn masked(tool: &ToolInfo, error: &str) -> CallToolResult {
    tracing::error!(tool = tool.name(), error, "tool failed");
    error_result(format!("Error calling tool '{}'", tool.name()))
}

fn error_result(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic payload".to_owned());
    format!("panicked: {text}")
}
