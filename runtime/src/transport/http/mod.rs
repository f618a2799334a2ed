//! Streamable HTTP (MCP 2025-11-25), on rmcp's `StreamableHttpService` and axum: stateless by
//! default, so that identical replicas can stand behind any load balancer; secure by default
//! (the `Host` and `Origin` of every request are checked).
//!
//! The transport knows rmcp's service and nothing of the server: it is given a factory that
//! makes a handler per session (per request, when stateless).

mod body;
mod config;
mod events;
mod fast;
#[cfg(feature = "auth")]
pub(crate) mod guard;
mod listen;
mod sessions;

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body as HttpBody;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub(crate) use config::HttpConfig;
pub use config::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_BODY,
};
pub(crate) use events::CallEvents;
pub(crate) use fast::{Body, FastPath, McpHeaders};
pub use sessions::DEFAULT_MAX_SESSIONS;

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
    let service = StreamableHttpService::new(
        move || Ok(make()),
        manager.clone(),
        config.rmcp(local, &public, end_streams.clone()),
    );
    #[cfg_attr(not(feature = "auth"), allow(unused_mut))]
    let mut router = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route_service(&path, service);
    #[cfg(feature = "auth")]
    let guard = match config.guard.clone() {
        Some(guard) => {
            let guard = Arc::new(guard::Guard::new(guard, &public).await?);
            for at in guard::metadata_paths(&path, &public) {
                let guard = guard.clone();
                router = router.route(&at, get(move || async move { guard.metadata() }));
            }
            tracing::info!(
                "authorization required: bearer tokens from {}",
                config.guard.as_ref().map_or("", |g| g.auth.issuer.as_str())
            );
            Some(guard)
        }
        None => None,
    };
    let edge = Arc::new(Edge {
        in_flight: in_flight.clone(),
        max_body: config.max_body,
        body_timeout: config.body_timeout,
        fast_path,
        sse: config.sse,
        hosts: config.hosts(local, &public),
        endpoint: path.clone(),
        sessions: config.sessions.then(|| {
            let max = config
                .max_sessions
                .unwrap_or(sessions::DEFAULT_MAX_SESSIONS);
            sessions::Sessions::new(manager.clone(), max)
        }),
        #[cfg(feature = "auth")]
        guard,
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
    let serving = listen::accept(listener, router, limits, asked.clone());
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
        () = serving => Ok(()),
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

/// What every request passes through before rmcp.
struct Edge {
    /// Every request counts as in flight until its response is made: a stop waits for it.
    in_flight: TaskTracker,
    max_body: usize,
    /// How long reading a body may take.
    body_timeout: Duration,
    /// Stateless JSON `tools/call` and `tools/list`, answered by the server directly.
    fast_path: Option<Arc<dyn FastPath>>,
    /// Answers are server-sent event streams, not JSON bodies.
    sse: bool,
    /// The `Host`s rmcp accepts, for the fast path's plain check.
    hosts: Vec<String>,
    /// The MCP endpoint's path: the only one where anything MCP happens.
    endpoint: String,
    /// With `--sessions`: their cap, owners and request ids.
    sessions: Option<sessions::Sessions>,
    #[cfg(feature = "auth")]
    guard: Option<Arc<guard::Guard>>,
}

/// One line per request at debug: method, path, status, duration (never the body: arguments
/// may hold secrets).
async fn around_request(State(edge): State<Arc<Edge>>, request: Request, next: Next) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let _in_flight = edge.in_flight.token();
    let start = Instant::now();
    let response = match screen(request, &edge).await {
        Ok(Screened {
            request,
            events,
            hold,
        }) => {
            let response = match events {
                Some(events) => events::deliver(events, next.run(request)).await,
                None => next.run(request).await,
            };
            match &edge.sessions {
                Some(sessions) => sessions.finish(hold, response).await,
                None => response,
            }
        }
        Err(answer) => answer,
    };
    tracing::debug!(
        %method,
        path,
        status = response.status().as_u16(),
        duration_us = start.elapsed().as_micros() as u64,
        "http request"
    );
    response
}

/// A request that goes on to rmcp.
struct Screened {
    request: Request,
    /// A tool call's notifications, to go on its own response.
    events: Option<tokio::sync::mpsc::Receiver<Vec<u8>>>,
    /// What its session holds until it is answered.
    hold: sessions::Hold,
}

impl Screened {
    fn pass(request: Request) -> Screened {
        Screened {
            request,
            events: None,
            hold: sessions::Hold::default(),
        }
    }
}

/// The parts of a JSON-RPC message the edge looks at.
#[derive(serde::Deserialize)]
struct Shape<'a> {
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    result: Option<serde::de::IgnoredAny>,
    error: Option<serde::de::IgnoredAny>,
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    #[serde(borrow)]
    id: Option<&'a serde_json::value::RawValue>,
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    #[serde(borrow)]
    params: Option<Params<'a>>,
}

#[derive(serde::Deserialize)]
struct Params<'a> {
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
}

/// Only the MCP endpoint (its exact path) reaches any of this. With authorization, a request
/// to it needs a valid bearer token (401
/// otherwise) and a tool call the scopes its tool needs (403). Then reads a POST's body, at
/// most `max_body` bytes (the one place the limit is enforced): a larger body is answered
/// with 413 and a JSON-RPC error, as the client expects a JSON-RPC answer to its request; a
/// JSON-RPC response POSTed outside a session, where no request of the server waits for it,
/// is accepted (202) and dropped, as the specification says; in a session it goes to rmcp,
/// which hands it to the request it answers. Anything else goes on, its body intact.
async fn screen(
    #[cfg_attr(not(feature = "auth"), allow(unused_mut))] mut request: Request,
    edge: &Edge,
) -> Result<Screened, Response> {
    // Any other path keeps its own answer (404, or 405 for a wrong method on `/healthz` and
    // the metadata): no body is read there, and nothing MCP runs.
    if request.uri().path() != edge.endpoint {
        return Ok(Screened::pass(request));
    }
    #[cfg(feature = "auth")]
    let caller = match &edge.guard {
        Some(guard) => {
            let caller = guard.authenticate(request.headers()).await?;
            request.extensions_mut().insert(caller.clone());
            Some((guard, caller))
        }
        _ => None,
    };
    #[cfg(feature = "auth")]
    let who = caller.as_ref().map(|(_, caller)| caller);
    #[cfg(not(feature = "auth"))]
    let who = None;
    if request.method() != Method::POST {
        let hold = match &edge.sessions {
            Some(sessions) => {
                let (method, headers) = (request.method(), request.headers());
                sessions.screen(method, headers, who, None).await?
            }
            None => sessions::Hold::default(),
        };
        let mut screened = Screened::pass(request);
        screened.hold = hold;
        return Ok(screened);
    }
    let (mut parts, body) = request.into_parts();
    let bytes =
        match tokio::time::timeout(edge.body_timeout, axum::body::to_bytes(body, edge.max_body))
            .await
        {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(_)) => {
                return Err(refused(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "the request body is over the server's limit",
                ));
            }
            Err(_) => {
                return Err(refused(
                    StatusCode::REQUEST_TIMEOUT,
                    "the request body did not arrive in time",
                ));
            }
        };
    let shape = serde_json::from_slice::<Shape>(&bytes).ok();
    let hold = match &edge.sessions {
        Some(sessions) => {
            let message = shape
                .as_ref()
                .map(|shape| (shape.method.as_deref(), shape.id.map(|id| id.get())));
            sessions
                .screen(&parts.method, &parts.headers, who, message)
                .await?
        }
        None => sessions::Hold::default(),
    };
    // A response in a session may answer a request the server sent: rmcp routes it there.
    // Without a session nothing waits for one.
    if let Some(shape) = &shape
        && shape.method.is_none()
        && (shape.result.is_some() || shape.error.is_some())
        && !parts.headers.contains_key("mcp-session-id")
    {
        let mut accepted = Response::new(HttpBody::empty());
        *accepted.status_mut() = StatusCode::ACCEPTED;
        return Err(accepted);
    }
    #[cfg(feature = "auth")]
    if let Some((guard, caller)) = &caller
        && let Some(shape) = &shape
        && shape.method.as_deref() == Some("tools/call")
        && let Some(name) = shape.params.as_ref().and_then(|p| p.name.as_deref())
    {
        let id = shape.id.and_then(|id| serde_json::from_str(id.get()).ok());
        if let Some(refused) = guard.refusal_of(caller, name, id.as_ref()) {
            return Err(refused);
        }
    }
    // A call's notifications go on its own response, when the client takes event streams.
    let is_call = shape
        .as_ref()
        .is_some_and(|shape| shape.method.as_deref() == Some("tools/call"));
    let (events, receiver) = match is_call && fast::accepts_events(&parts.headers) {
        true => {
            let (events, receiver) = events::channel();
            parts.extensions.insert(events.clone());
            (Some(events), Some(receiver))
        }
        false => (None, None),
    };
    if let Some(fast_path) = &edge.fast_path
        && let Some(shape) = &shape
        && matches!(
            shape.method.as_deref(),
            Some("tools/call" | "tools/list" | "server/discover")
        )
        && let Some(headers) = fast::plain(&parts.headers, &edge.hosts)
    {
        let caller = parts
            .extensions
            .get::<crate::Caller>()
            .cloned()
            .unwrap_or_default();
        if let Some(answer) = fast_path.answer(&bytes, headers, caller, events) {
            let sse = edge.sse;
            let answer = async move { fast::respond(answer.await, sse) };
            return Err(match receiver {
                Some(receiver) => events::deliver(receiver, answer).await,
                None => answer.await,
            });
        }
    }
    let request = Request::from_parts(parts, HttpBody::from(bytes));
    Ok(Screened {
        request,
        events: receiver,
        hold,
    })
}

/// A request refused before it was read whole: `status`, with a JSON-RPC error (the client
/// expects a JSON-RPC answer), and the connection closed (the rest of the body would be
/// taken for the next request).
fn refused(status: StatusCode, why: &str) -> Response {
    let mut response = body::json_error(status, None, -32600, &format!("Invalid Request: {why}"));
    response.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    response
}
