//! `GET /metrics` (feature `metrics`): on the public endpoint when nothing guards it, behind a
//! token with a scope when authorization is on and a scope was given, or on a listener of
//! its own (`--metrics-addr`), never on the public endpoint by accident.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::get;
use tokio_util::sync::CancellationToken;

pub(crate) use super::config::Exposure;
use crate::metrics::Metrics;

/// The path metrics are served at.
pub(crate) const PATH: &str = "/metrics";

/// The response that carries `metrics` in Prometheus' text format.
fn rendered(metrics: &Metrics) -> Response {
    let mut response = Response::new(Body::from(metrics.render()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

/// The 403 of a scrape whose `Host` is not one the server answers to (DNS rebinding: a page
/// of another site, resolved to this address, must not read the counters), `None` when it is.
fn wrong_host(headers: &HeaderMap, hosts: &[String]) -> Option<Response> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if host.is_some_and(|host| super::fast::host_allowed(host, hosts)) {
        return None;
    }
    let mut response = Response::new(Body::from(
        "Forbidden: the Host header is not one this server answers to; a scraper that uses another name is allowed with --metrics-host NAME",
    ));
    *response.status_mut() = StatusCode::FORBIDDEN;
    Some(response)
}

/// `/metrics` for anyone who reaches it with an allowed `Host`.
fn open(metrics: &Metrics, hosts: Arc<Vec<String>>) -> axum::routing::MethodRouter {
    let metrics = metrics.clone();
    get(move |headers: HeaderMap| {
        let answer = wrong_host(&headers, &hosts).unwrap_or_else(|| rendered(&metrics));
        std::future::ready(answer)
    })
}

/// `router` with `/metrics` as `exposure` says, to requests whose `Host` is one of `hosts`.
pub(super) fn route(
    router: Router,
    metrics: &Metrics,
    exposure: &Exposure,
    hosts: Vec<String>,
    guard: Option<&std::sync::Arc<super::guard::Guard>>,
) -> Router {
    let hosts = Arc::new(hosts);
    match exposure {
        Exposure::Hidden => router,
        Exposure::Open => router.route(PATH, open(metrics, hosts)),
        Exposure::Scoped(scope) => {
            let Some(guard) = guard.cloned() else {
                return router;
            };
            let (metrics, scope) = (metrics.clone(), scope.clone());
            router.route(
                PATH,
                get(move |headers: axum::http::HeaderMap| {
                    let (guard, metrics, scope) = (guard.clone(), metrics.clone(), scope.clone());
                    let wrong = wrong_host(&headers, &hosts);
                    async move {
                        if let Some(wrong) = wrong {
                            return wrong;
                        }
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
    }
}

/// Serves `/metrics` alone at `addr`, without authorization (a port the operator keeps
/// private), until `stop`, to requests whose `Host` is a loopback name, the listener's own
/// address, or one of `hosts`. Returns once it listens, with the address it listens at.
pub(crate) fn serve_apart(
    addr: SocketAddr,
    metrics: Metrics,
    hosts: &[String],
    stop: CancellationToken,
) -> Result<SocketAddr, crate::Error> {
    let listener = super::listen::bind(addr).map_err(|err| {
        let message = format!("cannot listen on {addr} for metrics: {err}");
        crate::Error::config_from("metrics address", message, err)
    })?;
    let local = listener.local_addr()?;
    let mut allowed: Vec<String> = super::config::LOOPBACK_HOSTS
        .iter()
        .map(|h| (*h).to_owned())
        .collect();
    allowed.push(local.to_string());
    if !local.ip().is_unspecified() {
        allowed.push(local.ip().to_string());
    }
    allowed.extend(hosts.iter().cloned());
    let router = Router::new().route(PATH, open(&metrics, Arc::new(allowed)));
    let limits = super::listen::Limits {
        header: Duration::from_secs(10),
        idle: Duration::from_secs(60),
        max_connections: 64,
    };
    tokio::spawn(super::listen::accept(listener, router, limits, stop, None));
    tracing::info!("metrics at http://{local}{PATH}");
    Ok(local)
}
