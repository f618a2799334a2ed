//! Running one `tools/call`: decode the arguments, run the tool (sync ones off the
//! reactor) under its timeout and the client's cancellation, turn its outcome into an MCP
//! result. Panics and unexpected errors are masked.

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::sync::SyncLimit;
use crate::context::CallContext;
use crate::tool::args::Arguments;
use crate::tool::def::Invocation;
use crate::tool::output::{Outcome, Output};
use crate::{ErrorKind, META_ERROR, ToolInfo};

/// The protocol error (-32602) for a tool that does not exist.
pub(crate) fn unknown_tool(name: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("unknown tool '{name}'"),
        Some(json!({ "tool": name })),
    )
}

/// Runs one call of `tool`. Every failure is an `isError` result. `cancelled` is the client's
/// cancellation: when it fires the tool is stopped (async) or told (sync, through
/// `Cancellation`), and the result is never seen (rmcp sends none for a cancelled request).
pub(crate) async fn run(
    tool: &ToolInfo,
    arguments: Option<JsonObject>,
    context: CallContext,
    cancelled: CancellationToken,
    sync: &SyncLimit,
) -> CallToolResult {
    // Only a server built without the startup check (the test client, `call`) gets here
    // without a state the tool needs.
    if let Some(missing) = super::check::missing_state(&context.states, tool) {
        return error_result(ErrorKind::Failed, missing.to_string());
    }
    let outcome = tokio::select! {
        biased;
        outcome = execute(tool, arguments, &context, sync) => outcome,
        () = cancelled.cancelled() => {
            context.cancel.cancel();
            context.close();
            tracing::debug!(tool = tool.name(), "call cancelled by the client");
            // rmcp sends nothing for a cancelled request; this result is never seen.
            return error_result(ErrorKind::Failed, format!("tool '{}' was cancelled", tool.name()));
        }
    };
    // Notifications sent so far precede the result; later ones are dropped.
    context.close();
    into_result(tool, outcome)
}

async fn execute(
    tool: &ToolInfo,
    arguments: Option<JsonObject>,
    context: &CallContext,
    sync: &SyncLimit,
) -> Outcome {
    let def = tool.def();
    let args = Arguments::new(arguments, def.params, tool.expected());
    let invocation =
        match std::panic::catch_unwind(AssertUnwindSafe(|| (def.invoke)(args, context))) {
            Ok(invocation) => invocation,
            Err(panic) => return Outcome::Failed(panic_message(&*panic)),
        };
    let body = async {
        match invocation {
            Invocation::Invalid(problems) => Outcome::Invalid(problems),
            Invocation::Blocking(body) => sync.run(body).await,
            Invocation::Async(body) => match AssertUnwindSafe(body).catch_unwind().await {
                Ok(outcome) => outcome,
                Err(panic) => Outcome::Failed(panic_message(&*panic)),
            },
        }
    };
    let Some(timeout) = def.timeout else {
        return body.await;
    };
    match tokio::time::timeout(Duration::from_millis(timeout.millis), body).await {
        Ok(outcome) => outcome,
        Err(_) => {
            // Tell a sync tool still running in its thread to stop.
            context.cancel.cancel();
            Outcome::TimedOut(format!(
                "tool '{}' timed out after {}",
                tool.name(),
                timeout.text
            ))
        }
    }
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
        Outcome::Ok(Output::Content(content, structured)) => {
            let mut result = CallToolResult::success(content);
            result.structured_content = structured;
            result
        }
        Outcome::Invalid(problems) => error_result(
            ErrorKind::InvalidArguments,
            format!("Invalid arguments for tool '{}': {problems}", tool.name()),
        ),
        Outcome::ToolError(message) => error_result(ErrorKind::Tool, message),
        Outcome::TimedOut(message) => error_result(ErrorKind::TimedOut, message),
        Outcome::Failed(error) => {
            tracing::error!(tool = tool.name(), error, "tool failed");
            error_result(
                ErrorKind::Failed,
                format!("Error calling tool '{}'", tool.name()),
            )
        }
    }
}

/// An error result, its kind in `_meta`.
pub(crate) fn error_result(kind: ErrorKind, message: String) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(message)]);
    let mut meta = MetaObject::new();
    meta.insert(META_ERROR.into(), kind.as_str().into());
    result.meta = Some(meta);
    result
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic payload".to_owned());
    format!("panicked: {text}")
}
