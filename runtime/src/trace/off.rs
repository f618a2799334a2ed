//! Traces without the `otel` feature: the names the rest of the crate calls, and nothing is
//! ever traced. `active()` is a constant `false`, so what is built only for a trace is gone
//! from the build (as tokio's `cfg_*!` stubs keep its feature gates out of the callers).

use tracing::Span;

use crate::outcome::OutcomeLabel;
use crate::{context::Caller, tool::ToolInfo};

/// The span of the HTTP request a call came in: none is ever made.
#[derive(Clone)]
pub(crate) enum Handoff {}

impl Handoff {
    /// The HTTP request's span (never asked: there is no handoff).
    #[cfg(feature = "http")]
    pub(crate) fn span(&self) -> Span {
        match *self {}
    }
}

/// What would turn traces on: never made.
pub(crate) enum Activation {}

impl Activation {
    pub(crate) fn activate(self) {
        match self {}
    }
}

/// No layer exports spans.
pub(crate) fn layer() -> Result<Option<(tracing_subscriber::layer::Identity, Activation)>, String> {
    Ok(None)
}

/// The span a request's log keeps: nothing, without traces (a `Span::none()` is 40 bytes in
/// every call's state).
pub(crate) struct CallSpan;

/// The span every untraced request records into.
static NONE: Span = Span::none();

impl CallSpan {
    pub(crate) const fn none() -> CallSpan {
        CallSpan
    }

    pub(crate) fn span(&self) -> &Span {
        &NONE
    }
}

impl From<Span> for CallSpan {
    fn from(_span: Span) -> CallSpan {
        CallSpan
    }
}

/// Whether traces are exported: never.
pub(crate) const fn active() -> bool {
    false
}

/// The span of a call: none.
pub(crate) fn call_span(
    _method: &'static str,
    _name: &str,
    _meta: Option<&serde_json::Map<String, serde_json::Value>>,
    _request: Option<&Handoff>,
    _way: &'static str,
) -> Span {
    Span::none()
}

/// Nothing to record.
pub(crate) fn read_of(_span: &Span, _uri: &str) {}

/// Nothing to record.
pub(crate) fn tool_known(_span: &Span, _tool: &ToolInfo, _caller: &Caller, _scope: Option<&str>) {}

/// Nothing to record.
pub(crate) fn finish_call(_span: &Span, _outcome: impl FnOnce() -> OutcomeLabel) {}

cfg_http! {
    /// The span of an HTTP request: none.
    pub(crate) fn request_span<'a>(
        _method: &str,
        _path: &str,
        _header: impl Fn(&str) -> Option<&'a str>,
    ) -> Option<Handoff> {
        None
    }

    /// Nothing to record.
    pub(crate) fn request_read(_method: Option<&str>, _id: Option<&str>) {}

    /// Nothing to record.
    pub(crate) fn responded(_span: &Span, _status: u16) {}
}

/// Nothing to send.
pub(crate) async fn flush() {}
