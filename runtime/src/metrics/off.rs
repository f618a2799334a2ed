//! Metrics without the `metrics` feature: the names the rest of the crate calls. A server
//! never has metrics then (every type here is empty), so an `Option<Metrics>` is always
//! `None` and what it would record is gone from the build, as tokio's `cfg_*!` stubs keep its
//! feature gates out of the callers.

pub(crate) use crate::outcome::Failure;
use crate::outcome::OutcomeLabel;
pub(crate) use crate::request::Operation;
use crate::request::Transport;

/// A server's metrics: never made.
#[derive(Clone, Debug)]
pub(crate) enum Metrics {}

/// A request being measured as an MCP operation: never made.
pub(crate) enum Measured {}

impl Measured {
    pub(crate) fn start(
        metrics: &Metrics,
        _timed: bool,
        _transport: Transport,
        _version: Option<&rmcp::model::ProtocolVersion>,
    ) -> Option<Measured> {
        match *metrics {}
    }

    pub(crate) fn operation<'a>(&'a self, _method: &'a str, _failure: Failure) -> Operation<'a> {
        match *self {}
    }

    pub(crate) fn record(&self, _op: Operation<'_>) {
        match *self {}
    }
}

/// A tool call being timed: never made.
pub(crate) enum CallTimer {}

cfg_http! {
    /// An open connection being counted: never made.
    pub(crate) enum OpenGuard {}

    impl Metrics {
        pub(crate) fn connection(&self) -> OpenGuard {
            match *self {}
        }

        pub(crate) fn http_status(&self, _status: u16) {
            match *self {}
        }

        #[cfg(feature = "auth")]
        pub(crate) fn auth_refused(&self, _why: crate::outcome::AuthRefusal) {
            match *self {}
        }
    }
}

impl Metrics {
    pub(crate) fn call_started(&self) -> CallTimer {
        match *self {}
    }

    pub(crate) fn operation(&self, _op: Operation<'_>, _tool: Option<&str>, _seconds: f64) {
        match *self {}
    }

    pub(crate) fn session_ended(
        &self,
        _transport: Transport,
        _version: Option<&str>,
        _seconds: f64,
    ) {
        match *self {}
    }

    pub(crate) fn confirmation_asked(&self) {
        match *self {}
    }

    pub(crate) fn approval_decided(&self, _approver: &str, _decision: &'static str) {
        match *self {}
    }

    pub(crate) fn confirmation_answered(&self, _accepted: bool) {
        match *self {}
    }
}

impl CallTimer {
    pub(crate) fn finish(&self, _tool: &str, _outcome: OutcomeLabel, _op: Option<Operation<'_>>) {
        match *self {}
    }
}
