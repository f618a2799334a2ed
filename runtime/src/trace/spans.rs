//! The spans: one per HTTP request to the MCP endpoint, one per tool call. Each is
//! `Span::none()` (free) unless traces are exported and its trace may be sampled.

use tracing::field::Empty;
use tracing::{Level, Span};
use tracing_opentelemetry::OpenTelemetrySpanExt;

#[cfg(feature = "http")]
use super::parent_of;
use super::{TARGET, active, parent_of_meta, wanted};
use crate::outcome::CallOutcome;
use crate::{Caller, ToolInfo};

/// An HTTP request's span, handed in its extensions to the call rmcp's service makes of it
/// (that call runs on rmcp's task, outside the request's span).
#[cfg(feature = "http")]
#[derive(Clone)]
pub(crate) struct Handoff(pub(crate) Span);

/// Whether `span` is one of toolsmith's exported spans.
fn ours(span: &Span) -> bool {
    span.metadata().is_some_and(|m| m.target() == TARGET)
}

/// The span of an HTTP `method` request to the endpoint `path`, its parent from the
/// `traceparent` header `header` finds; the MCP session and revision from theirs.
#[cfg(feature = "http")]
pub(crate) fn request_span<'a>(
    method: &str,
    path: &str,
    header: impl Fn(&str) -> Option<&'a str>,
) -> Span {
    if !active() {
        return Span::none();
    }
    let parent = parent_of(&header);
    if !wanted(parent.as_ref()) {
        return Span::none();
    }
    let span = tracing::span!(
        target: TARGET,
        Level::TRACE,
        "http request",
        otel.name = %format_args!("{method} {path}"),
        otel.kind = "server",
        otel.status_code = Empty,
        http.request.method = method,
        url.path = path,
        http.response.status_code = Empty,
        mcp.method.name = Empty,
        jsonrpc.request.id = Empty,
        mcp.session.id = header("mcp-session-id"),
        mcp.protocol.version = header("mcp-protocol-version"),
        error.type = Empty,
    );
    if let Some(parent) = parent {
        let _ = span.set_parent(parent);
    }
    span
}

/// What the current request turned out to be, once its body was read: its JSON-RPC method
/// and id.
#[cfg(feature = "http")]
pub(crate) fn request_read(method: Option<&str>, id: Option<&str>) {
    let span = Span::current();
    if !ours(&span) {
        return;
    }
    if let Some(method) = method {
        span.record("mcp.method.name", method);
    }
    if let Some(id) = id {
        span.record("jsonrpc.request.id", id.trim_matches('"'));
    }
}

/// The request of `span` was answered with `status`.
#[cfg(feature = "http")]
pub(crate) fn responded(span: &Span, status: u16) {
    if span.is_disabled() {
        return;
    }
    span.record("http.response.status_code", i64::from(status));
    if status >= 500 {
        span.record("error.type", status.to_string().as_str());
        span.record("otel.status_code", "ERROR");
    }
}

/// The span of a call of `tool` (the name as asked), its parent the trace context of its
/// `_meta` or else its request's span (`request`, or the current one); `per_request`: the
/// revision its `_meta` names.
pub(crate) fn call_span(
    tool: &str,
    meta: Option<&serde_json::Map<String, serde_json::Value>>,
    request: Option<&Span>,
    way: &'static str,
) -> Span {
    if !active() {
        return Span::none();
    }
    let parent = parent_of_meta(meta);
    let current = Span::current();
    let request = request
        .filter(|span| ours(span))
        .or(ours(&current).then_some(&current));
    let wanted = match (&parent, request) {
        (Some(parent), _) => wanted(Some(parent)),
        (None, Some(request)) => !request.is_disabled(),
        (None, None) => wanted(None),
    };
    if !wanted {
        return Span::none();
    }
    let version = meta
        .and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(|v| v.as_str());
    let kind = if parent.is_none() && request.is_some() {
        "internal"
    } else {
        "server"
    };
    let span = tracing::span!(
        target: TARGET,
        parent: request.and_then(|r| r.id()),
        Level::TRACE,
        "tools/call",
        otel.name = %format_args!("tools/call {tool}"),
        otel.kind = kind,
        otel.status_code = Empty,
        mcp.method.name = "tools/call",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
        mcp.protocol.version = version,
        toolsmith.way = way,
        toolsmith.hints.read_only = Empty,
        toolsmith.hints.destructive = Empty,
        toolsmith.hints.idempotent = Empty,
        toolsmith.hints.open_world = Empty,
        toolsmith.scope = Empty,
        enduser.id = Empty,
        toolsmith.outcome = Empty,
        error.type = Empty,
    );
    // Without a request span, `parent: None` makes it a root: a span of the program's own
    // that happens to be current is no trace of the client's.
    if let Some(parent) = parent {
        let _ = span.set_parent(parent);
    }
    span
}

/// The call of `span` resolved to `tool`, for `caller`, needing `scope` (with
/// authorization).
pub(crate) fn tool_known(span: &Span, tool: &ToolInfo, caller: &Caller, scope: Option<&str>) {
    if span.is_disabled() {
        return;
    }
    let hints = tool.hints();
    span.record("toolsmith.hints.read_only", hints.read_only);
    span.record("toolsmith.hints.destructive", hints.destructive);
    span.record("toolsmith.hints.idempotent", hints.idempotent);
    span.record("toolsmith.hints.open_world", hints.open_world);
    if let Some(scope) = scope {
        span.record("toolsmith.scope", scope);
    }
    if let Some(subject) = caller.subject() {
        span.record("enduser.id", subject);
    }
}

/// The call of `span` ended with `outcome`.
pub(crate) fn finish_call(span: &Span, outcome: CallOutcome) {
    if span.is_disabled() {
        return;
    }
    span.record("toolsmith.outcome", outcome.as_str());
    if !matches!(
        outcome,
        CallOutcome::Ok | CallOutcome::InputRequired | CallOutcome::Task
    ) {
        span.record("error.type", outcome.as_str());
        span.record("otel.status_code", "ERROR");
    }
}
