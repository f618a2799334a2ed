//! Streamable HTTP (MCP 2025-11-25), on rmcp's `StreamableHttpService` and axum: stateless by
//! default, so that identical replicas can stand behind any load balancer; secure by default
//! (the `Host` and `Origin` of every request are checked).
//!
//! The transport knows rmcp's service and nothing of the server: it is given a factory that
//! makes a handler per session (per request, when stateless), and the server's fast path.

mod body;
mod config;
mod edge;
mod events;
mod fast;
#[cfg(feature = "auth")]
pub(crate) mod guard;
#[cfg(not(feature = "auth"))]
#[path = "guard/off.rs"]
pub(crate) mod guard;
mod headers;
mod listen;
#[cfg(feature = "metrics")]
pub(crate) mod metrics;
mod rmcp_service;
mod routes;
mod sessions;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::middleware;
use axum::routing::get;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use edge::{Edge, around_request};

pub(crate) use config::HttpConfig;
pub(crate) use config::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_BODY,
};
pub(crate) use events::CallEvents;
pub(crate) use fast::{Body, FastPath, McpHeaders, Offer, OpenedSession};
pub use routes::Serving;
pub(crate) use routes::{RouteMaker, SharedStore};
pub(crate) use sessions::DEFAULT_MAX_SESSIONS;
pub(crate) use sessions::{Adopter, Session, SessionCore, restoring};

/// How long calls in flight may take to finish once a stop was asked for.
const GRACE: Duration = Duration::from_secs(10);

/// How long the answers of the last calls get to reach their response streams at a stop.
const SETTLE: Duration = Duration::from_millis(50);

/// Serves `handler`s (one per session, or per request when stateless) at `config`'s address
/// and path until SIGTERM or SIGINT, then lets calls in flight finish (at most 10 s;
/// `in_flight` tracks them).
pub(crate) async fn serve<S, F>(
    make: F,
    config: HttpConfig,
    fast_path: Option<Arc<dyn FastPath>>,
    in_flight: TaskTracker,
) -> Result<(), crate::Error>
where
    S: ServerHandler + Send + 'static,
    F: Fn() -> S + Send + Sync + 'static,
{
    let listener = listen::bind(config.addr).map_err(|err| {
        let message = format!("cannot listen on {}: {err}", config.addr);
        crate::Error::config_from("HTTP address", message, err)
    })?;
    let local = listener.local_addr()?;
    let path = config.path.clone();
    let public = config.public_url(local);
    // Cancelled last: it ends rmcp's streams, so calls in flight get their grace first.
    let end_streams = CancellationToken::new();
    let manager = Arc::new(LocalSessionManager::default());
    let sessions = match config.sessions {
        true => {
            let max = config
                .max_sessions
                .unwrap_or(sessions::DEFAULT_MAX_SESSIONS);
            let store = config.store.as_ref().map(|store| store.0.clone());
            let adopter = fast_path.clone().map(|fast| fast as Arc<dyn Adopter>);
            let sessions = sessions::Sessions::new(manager.clone(), max, store, adopter)
                .await
                .map_err(|err| {
                    let message = format!("the sessions' channel in the task store: {err}");
                    crate::Error::config_from("task store", message, err)
                })?;
            sessions::Sessions::sweeping(&sessions);
            Some(sessions)
        }
        false => None,
    };
    let mut rmcp_config = config.rmcp(local, &public, end_streams.clone());
    // The sessions the server opened itself are restored from there when rmcp must serve one.
    rmcp_config.session_store = sessions.as_ref().map(|sessions| sessions.store() as _);
    let service = StreamableHttpService::new(move || Ok(make()), manager.clone(), rmcp_config);
    let router = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route_service(&path, rmcp_service::RmcpService::new(service));
    let (router, guard) = guard::install(
        config.guard.clone(),
        config.metrics.clone(),
        &path,
        &public,
        router,
    )
    .await?;
    // `/metrics` beside the endpoint, as its exposure says.
    #[cfg(feature = "metrics")]
    let router = match &config.metrics {
        Some(metrics) => {
            if let Some(sessions) = &sessions {
                let sessions = sessions.clone();
                metrics.count_sessions(move || sessions.count());
            }
            let mut hosts = config.hosts(local, &public);
            hosts.extend(config.metrics_hosts.iter().cloned());
            let exposure = &config.metrics_exposure;
            metrics::route(router, metrics, exposure, hosts, guard.as_ref())
        }
        None => router,
    };
    // The program's own routes, made with what the server serves with: a path the server
    // answers itself stays the server's.
    let mut router = router;
    if let Some(store) = config.store.as_ref().filter(|_| !config.routes.is_empty()) {
        let serving = Serving {
            store: store.0.clone(),
            public_url: public.clone(),
        };
        let own = config
            .routes
            .iter()
            .fold(Router::new(), |own, make| own.merge((make.0)(&serving)));
        router = router.fallback_service(own);
    }
    let edge = Arc::new(Edge {
        in_flight: in_flight.clone(),
        max_body: config.max_body,
        body_timeout: config.body_timeout,
        fast_path,
        // rmcp answers every request of a session with an event stream.
        sse: config.sse || config.sessions,
        hosts: config.hosts(local, &public),
        endpoint: path.clone(),
        sessions,
        guard,
        metrics: config.metrics.clone(),
    });
    let router = router.layer(middleware::from_fn_with_state(edge, around_request));
    let signal = stop_signal()?;
    tracing::info!("listening on http://{local}{path}");
    if config.public_url.is_some() {
        tracing::info!("clients reach it at {public}");
    }
    let asked = CancellationToken::new();
    let limits = listen::Limits {
        header: config.header_timeout,
        idle: config.idle_timeout,
        max_connections: config
            .max_connections
            .unwrap_or_else(listen::default_max_connections),
    };
    tracing::debug!(?limits, "connection limits");
    let serving = listen::accept(
        listener,
        router,
        limits,
        asked.clone(),
        config.metrics.clone(),
    );
    let stopping = asked.clone();
    tokio::spawn(async move {
        signal.await;
        tracing::info!("stopping: no new connections; calls in flight get {GRACE:?}");
        stopping.cancel();
    });
    // Once calls in flight are done (or their grace is over), the event streams that stay
    // open (a session's GET stream) are ended too, so that the connections close.
    let drain = async {
        asked.cancelled().await;
        in_flight.close();
        if tokio::time::timeout(GRACE, in_flight.wait()).await.is_err() {
            tracing::warn!("calls still in flight after {GRACE:?} were stopped");
        }
        // A call's answer is handed to its response stream just after the call ends: give
        // the last ones a moment to leave before the streams end.
        tokio::time::sleep(SETTLE).await;
        end_streams.cancel();
        // The connections then close; this bounds the wait if one does not.
        tokio::time::sleep(Duration::from_secs(2)).await;
    };
    tokio::select! {
        // Every connection closed: calls whose clients left may still run; they get their
        // grace too.
        () = serving => {
            in_flight.close();
            if tokio::time::timeout(GRACE, in_flight.wait()).await.is_err() {
                tracing::warn!("calls still in flight after {GRACE:?} were stopped");
            }
            Ok(())
        }
        () = drain => Ok(()),
    }
}

/// SIGTERM (what container runtimes send) or SIGINT (Ctrl-C), watched from the moment this
/// is called (before the server says it listens, so that no early signal kills it).
fn stop_signal() -> std::io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async move {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}
