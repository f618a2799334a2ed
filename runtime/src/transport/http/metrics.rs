//! `GET /metrics` (feature `metrics`): on the public endpoint when nothing guards it, behind a
//! token with a scope when authorization is on and a scope was given, or on a listener of
//! its own (`--metrics-addr`), never on the public endpoint by accident.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use axum::routing::get;
use tokio_util::sync::CancellationToken;

use crate::metrics::Metrics;

/// The path metrics are served at.
pub(crate) const PATH: &str = "/metrics";

/// Where the public endpoint's server serves `/metrics`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Exposure {
    /// Not there (authorization is on and no scope was given, or metrics have a listener of
    /// their own): 404.
    #[default]
    Hidden,
    /// To anyone who reaches the server (no authorization).
    Open,
    /// To a bearer token with this scope (authorization is on).
    Scoped(String),
}

/// The response that carries `metrics` in Prometheus' text format.
fn rendered(metrics: &Metrics) -> Response {
    let mut response = Response::new(Body::from(metrics.render()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

/// `router` with `/metrics` as `exposure` says.
pub(super) fn route(
    router: Router,
    metrics: &Metrics,
    exposure: &Exposure,
    #[cfg(feature = "auth")] guard: Option<&std::sync::Arc<super::guard::Guard>>,
) -> Router {
    match exposure {
        Exposure::Hidden => router,
        Exposure::Open => {
            let metrics = metrics.clone();
            router.route(PATH, get(move || std::future::ready(rendered(&metrics))))
        }
        #[cfg(feature = "auth")]
        Exposure::Scoped(scope) => {
            let Some(guard) = guard.cloned() else {
                return router;
            };
            let (metrics, scope) = (metrics.clone(), scope.clone());
            router.route(
                PATH,
                get(move |headers: axum::http::HeaderMap| {
                    let (guard, metrics, scope) = (guard.clone(), metrics.clone(), scope.clone());
                    async move {
                        let caller = match guard.authenticate(&headers).await {
                            Ok(caller) => caller,
                            Err(refused) => return refused,
                        };
                        match guard.lacking(&caller, &scope, "the metrics", None) {
                            Some(refused) => refused,
                            None => rendered(&metrics),
                        }
                    }
                }),
            )
        }
        #[cfg(not(feature = "auth"))]
        Exposure::Scoped(_) => router,
    }
}

/// Serves `/metrics` alone at `addr`, without authorization (a port the operator keeps
/// private), until `stop`. Returns once it listens, with the address it listens at.
pub(crate) fn serve_apart(
    addr: SocketAddr,
    metrics: Metrics,
    stop: CancellationToken,
) -> Result<SocketAddr, crate::Error> {
    let listener = super::listen::bind(addr).map_err(|err| {
        let message = format!("cannot listen on {addr} for metrics: {err}");
        crate::Error::config_from("metrics address", message, err)
    })?;
    let local = listener.local_addr()?;
    let router = Router::new().route(PATH, get(move || std::future::ready(rendered(&metrics))));
    let limits = super::listen::Limits {
        header: Duration::from_secs(10),
        idle: Duration::from_secs(60),
        max_connections: 64,
    };
    tokio::spawn(super::listen::accept(listener, router, limits, stop, None));
    tracing::info!("metrics at http://{local}{PATH}");
    Ok(local)
}
