//! Authorization without the `auth` feature: the names the rest of the transport calls. No
//! endpoint is ever guarded then (every type here is empty), so an `Option<Guard>` is always
//! `None`.

use std::sync::Arc;

use axum::Router;
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::Value;

use crate::context::Caller;

/// What authorization is configured with: never made.
#[derive(Debug, Clone)]
pub(crate) enum GuardConfig {}

/// The guard of an endpoint: never made.
pub(crate) enum Guard {}

impl Guard {
    pub(super) async fn authenticate(&self, _headers: &HeaderMap) -> Result<Caller, Response> {
        match *self {}
    }

    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(super) fn lacking(
        &self,
        _caller: &Caller,
        _scope: &str,
        _what: &str,
        _id: Option<&Value>,
    ) -> Option<Response> {
        match *self {}
    }
}

/// No guard: `router` as it is.
pub(super) async fn install(
    config: Option<GuardConfig>,
    _metrics: Option<crate::metrics::Metrics>,
    _path: &str,
    _public: &str,
    router: Router,
) -> Result<(Router, Option<Arc<Guard>>), crate::Error> {
    // Without the feature, nothing can turn authorization on.
    match config {
        None => Ok((router, None)),
        Some(never) => match never {},
    }
}
