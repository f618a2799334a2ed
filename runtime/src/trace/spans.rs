//! The spans: one per HTTP request to the MCP endpoint, one per tool call. Each is
//! `Span::none()` (free) unless traces are exported and its trace may be sampled.

use tracing::field::Empty;
use tracing::{Level, Span};
use tracing_opentelemetry::OpenTelemetrySpanExt;

#[cfg(feature = "http")]
use super::parent_of;
use super::{TARGET, active, parent_of_meta, wanted};
use crate::outcome::OutcomeLabel;
use crate::{context::Caller, tool::ToolInfo};

/// The span of the HTTP request a call came in (`Span::none()` when the request was not
/// traced, which leaves its call untraced too, unless the call's `_meta` says otherwise).
/// The edge puts it in the request's extensions; both HTTP ways in hand it to the call.
#[derive(Clone)]
pub(crate) struct Handoff(pub(crate) Span);

/// The span a request's log keeps until the request is answered.
pub(crate) struct CallSpan(Span);

impl CallSpan {
    /// No span: the request is not traced.
    pub(crate) const fn none() -> CallSpan {
        CallSpan(Span::none())
    }

    /// The span to record into.
    pub(crate) fn span(&self) -> &Span {
        &self.0
    }
}

impl From<Span> for CallSpan {
    fn from(span: Span) -> CallSpan {
        CallSpan(span)
    }
}

impl Handoff {
    /// The HTTP request's span.
    #[cfg(feature = "http")]
    pub(crate) fn span(&self) -> Span {
        self.0.clone()
    }
}

/// The longest request id recorded, in bytes of its JSON; and the longest session id and
/// protocol version (a longer one is not recorded).
#[cfg(feature = "http")]
const MAX_ID: usize = 64;

/// Whether `span` is one of toolsmith's exported spans.
fn ours(span: &Span) -> bool {
    span.metadata().is_some_and(|m| m.target() == TARGET)
}

/// The span of an HTTP `method` request to the endpoint `path`, its parent from the
/// `traceparent` header `header` finds; the MCP session and revision from theirs. `None`
/// when its call would decide alike by itself (traces off, or no parent and a root sampler
/// that says no): nothing is handed on, and the request pays nothing more.
#[cfg(feature = "http")]
pub(crate) fn request_span<'a>(
    method: &str,
    path: &str,
    header: impl Fn(&str) -> Option<&'a str>,
) -> Option<Handoff> {
    if !active() {
        return None;
    }
    let parent = parent_of(&header);
    if !wanted(parent.as_ref()) {
        // A client's trace that is not sampled: its call is not traced either (a call
        // without a parent would be a root, which the sampler may want).
        return parent.map(|_| Handoff(Span::none()));
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
        // A client's headers are recorded only within the bound a request id has: a 300 KB
        // session id is no span attribute.
        mcp.session.id = header("mcp-session-id").filter(|v| v.len() <= MAX_ID),
        mcp.protocol.version = header("mcp-protocol-version").filter(|v| v.len() <= MAX_ID),
        error.type = Empty,
    );
    if let Some(parent) = parent {
        let _ = span.set_parent(parent);
    }
    Some(Handoff(span))
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
    // An id is the client's: a long one (it may be any JSON string) is left out.
    if let Some(id) = id.filter(|id| id.len() <= MAX_ID) {
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

/// The span of a `method` request (`tools/call`, `resources/read`, `prompts/get`) of `name`
/// (the registered name, or `unknown`: never a name a request made up), its parent the trace
/// context of its `_meta`, or else the span of the HTTP request it came in (`request`; a
/// request that was not traced leaves its call untraced).
pub(crate) fn call_span(
    method: &'static str,
    name: &str,
    meta: Option<&serde_json::Map<String, serde_json::Value>>,
    request: Option<&Handoff>,
    way: &'static str,
) -> Span {
    if !active() {
        return Span::none();
    }
    let parent = parent_of_meta(meta);
    let request = request.map(|handoff| &handoff.0);
    let wanted = match (&parent, request) {
        (Some(parent), _) => wanted(Some(parent)),
        // The request's own decision, made from its headers.
        (None, Some(request)) => ours(request),
        (None, None) => wanted(None),
    };
    if !wanted {
        return Span::none();
    }
    let request = request.filter(|span| ours(span));
    let version = meta
        .and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(|v| v.as_str());
    let kind = if parent.is_none() && request.is_some() {
        "internal"
    } else {
        "server"
    };
    // Without a request span, `parent: None` makes it a root: a span of the program's own
    // that happens to be current is no trace of the client's.
    let span = tracing::span!(
        target: TARGET,
        parent: request.and_then(|r| r.id()),
        Level::TRACE,
        "mcp request",
        otel.name = %format_args!("{method} {name}"),
        otel.kind = kind,
        otel.status_code = Empty,
        mcp.method.name = method,
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        mcp.resource.uri = Empty,
        mcp.protocol.version = version,
        toolsmith.way = way,
        toolsmith.hints.read_only = Empty,
        toolsmith.hints.destructive = Empty,
        toolsmith.hints.idempotent = Empty,
        toolsmith.hints.open_world = Empty,
        toolsmith.scope = Empty,
        toolsmith.category = Empty,
        enduser.id = Empty,
        toolsmith.approval.approver = Empty,
        toolsmith.approval.decision = Empty,
        toolsmith.outcome = Empty,
        error.type = Empty,
    );
    match method {
        "tools/call" => {
            span.record("gen_ai.operation.name", "execute_tool");
            span.record("gen_ai.tool.name", name);
        }
        "prompts/get" => {
            span.record("gen_ai.prompt.name", name);
        }
        _ => {}
    }
    if let Some(parent) = parent {
        let _ = span.set_parent(parent);
    }
    span
}

/// The read of `span` is of `uri`.
pub(crate) fn read_of(span: &Span, uri: &str) {
    if !span.is_disabled() {
        span.record("mcp.resource.uri", uri);
    }
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
    if let Some(category) = tool.category() {
        span.record("toolsmith.category", category);
    }
    if let Some(subject) = caller.subject() {
        span.record("enduser.id", subject);
    }
}

/// The call of `span` ended with `outcome` (read only for a span that exists).
pub(crate) fn finish_call(span: &Span, outcome: impl FnOnce() -> OutcomeLabel) {
    if span.is_disabled() {
        return;
    }
    let outcome = outcome();
    span.record("toolsmith.outcome", outcome.as_str());
    if !matches!(
        outcome,
        OutcomeLabel::Ok | OutcomeLabel::InputRequired | OutcomeLabel::Task
    ) {
        span.record("error.type", outcome.as_str());
        span.record("otel.status_code", "ERROR");
    }
}
