//! The edge: what every request passes through before rmcp. Only the endpoint reaches
//! anything MCP; there a request is authenticated, its body read within its limits, its
//! session screened, a stateless tool request offered to the fast path, and what rmcp would
//! misread answered here; a tool call's notifications go on its own response.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body as HttpBody;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use tokio_util::task::TaskTracker;

use super::{FastPath, body, events, fast, sessions};
use crate::transport::message;

/// The longest `Mcp-Session-Id` the edge lets through, in bytes.
pub(super) const MAX_SESSION_ID: usize = 128;

/// What every request passes through before rmcp.
pub(super) struct Edge {
    /// Every request counts as in flight until its response is made: a stop waits for it.
    pub(super) in_flight: TaskTracker,
    pub(super) max_body: usize,
    /// How long reading a body may take.
    pub(super) body_timeout: Duration,
    /// Stateless JSON `tools/call` and `tools/list`, answered by the server directly.
    pub(super) fast_path: Option<Arc<dyn FastPath>>,
    /// Answers are server-sent event streams, not JSON bodies.
    pub(super) sse: bool,
    /// The `Host`s rmcp accepts, for the fast path's plain check.
    pub(super) hosts: Vec<String>,
    /// The MCP endpoint's path: the only one where anything MCP happens.
    pub(super) endpoint: String,
    /// With `--sessions`: their cap, owners and request ids.
    pub(super) sessions: Option<sessions::Sessions>,
    pub(super) guard: Option<Arc<super::guard::Guard>>,
    /// Where every answer's status is counted.
    pub(super) metrics: Option<crate::metrics::Metrics>,
}

/// One line per request at debug: method, path, status, duration (never the body: arguments
/// may hold secrets).
pub(super) async fn around_request(
    State(edge): State<Arc<Edge>>,
    mut request: Request,
    next: Next,
) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let _in_flight = edge.in_flight.token();
    let start = Instant::now();
    // A span per request to the endpoint (not the probes and scrapes of other paths).
    let span = {
        let handoff = (crate::trace::active() && path == edge.endpoint)
            .then(|| {
                crate::trace::request_span(method.as_str(), &path, |name| {
                    request.headers().get(name).and_then(|v| v.to_str().ok())
                })
            })
            .flatten();
        match handoff {
            Some(handoff) => {
                let span = handoff.span();
                // For its call, on the fast path or on rmcp's task.
                request.extensions_mut().insert(handoff);
                span
            }
            None => tracing::Span::none(),
        }
    };
    let answered = async {
        match screen(request, &edge).await {
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
        }
    };
    // Entered on every poll only when it records something.
    let response = if span.is_disabled() {
        answered.await
    } else {
        tracing::Instrument::instrument(answered, span.clone()).await
    };
    crate::trace::responded(&span, response.status().as_u16());
    if let Some(metrics) = &edge.metrics {
        metrics.http_status(response.status().as_u16());
    }
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
    #[serde(borrow)]
    id: Option<&'a serde_json::value::RawValue>,
    /// Read only where needed (a `name` of another type must not hide the rest).
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    #[serde(borrow)]
    params: Option<&'a serde_json::value::RawValue>,
}

/// The params the edge authorizes by: what a request names.
#[cfg(feature = "auth")]
#[derive(serde::Deserialize)]
struct Named<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uri: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "taskId")]
    task_id: Option<Cow<'a, str>>,
    /// `completion/complete`'s reference: a prompt by name, a resource template by URI.
    #[serde(borrow, rename = "ref")]
    reference: Option<Reference<'a>>,
}

/// What `completion/complete` completes an argument of.
#[cfg(feature = "auth")]
#[derive(serde::Deserialize)]
struct Reference<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    uri: Option<Cow<'a, str>>,
}

impl Shape<'_> {
    /// `params.name`, `params.uri` and `params.taskId`, where they are strings.
    #[cfg(feature = "auth")]
    fn named(&self) -> Option<Named<'_>> {
        serde_json::from_str::<Named>(self.params?.get()).ok()
    }
}

/// Only the MCP endpoint (its exact path) reaches any of this. With authorization, a request
/// to it needs a valid bearer token (401
/// otherwise) and a tool call the scopes its tool needs (403). Then reads a POST's body, at
/// most `max_body` bytes (the one place the limit is enforced): a larger body is answered
/// with 413 and a JSON-RPC error, as the client expects a JSON-RPC answer to its request; a
/// JSON-RPC response POSTed outside a session, where no request of the server waits for it,
/// is accepted (202) and dropped, as the specification says; in a session it goes to rmcp,
/// which hands it to the request it answers. Anything else goes on, its body intact.
async fn screen(mut request: Request, edge: &Edge) -> Result<Screened, Response> {
    // Any other path keeps its own answer (404, or 405 for a wrong method on `/healthz` and
    // the metadata): no body is read there, and nothing MCP runs.
    if request.uri().path() != edge.endpoint {
        return Ok(Screened::pass(request));
    }
    // No session id this server issues is that long (rmcp's are 36-byte UUIDs).
    if request
        .headers()
        .get("mcp-session-id")
        .is_some_and(|id| id.len() > MAX_SESSION_ID)
    {
        return Err(refused(
            StatusCode::BAD_REQUEST,
            "the Mcp-Session-Id header is longer than any session id this server issues",
        ));
    }
    let caller = match &edge.guard {
        Some(guard) => {
            let caller = guard.authenticate(request.headers()).await?;
            request.extensions_mut().insert(caller.clone());
            Some((guard, caller))
        }
        None => None,
    };
    let who = caller.as_ref().map(|(_, caller)| caller);
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
            Ok(Err(err)) if over_limit(&err) => {
                return Err(refused(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "the request body is over the server's limit",
                ));
            }
            Ok(Err(_)) => {
                return Err(refused(
                    StatusCode::BAD_REQUEST,
                    "the request body could not be read",
                ));
            }
            Err(_) => {
                return Err(refused(
                    StatusCode::REQUEST_TIMEOUT,
                    "the request body did not arrive in time",
                ));
            }
        };
    // A UTF-8 byte order mark is no part of the JSON (stdio takes it too).
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(_) => bytes.slice(3..),
        None => bytes,
    };
    let shape = serde_json::from_slice::<Shape>(&bytes).ok();
    if crate::trace::active()
        && let Some(shape) = &shape
    {
        crate::trace::request_read(shape.method.as_deref(), shape.id.map(|id| id.get()));
    }
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
    {
        authorize(guard, caller, shape).await?;
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
        && match shape.method.as_deref() {
            Some("tools/call" | "tools/list" | "server/discover" | "initialize" | "ping") => true,
            Some(method) => method.starts_with("notifications/") && shape.id.is_none(),
            None => false,
        }
        && let Some(headers) = fast::plain(&parts.headers, &edge.hosts)
    {
        let caller = parts
            .extensions
            .get::<crate::context::Caller>()
            .cloned()
            .unwrap_or_default();
        let trace = crate::trace::active()
            .then(|| parts.extensions.get::<crate::trace::Handoff>().cloned())
            .flatten();
        if let Some(answer) = fast_path.answer(&bytes, headers, caller, events, trace) {
            let sse = edge.sse;
            let answer = async move { fast::respond(answer.await, sse) };
            return Err(match receiver {
                Some(receiver) => events::deliver(receiver, answer).await,
                None => answer.await,
            });
        }
    }
    // What rmcp would misread is answered here, as over stdio: JSON the parser cannot hold
    // (with the request's id when it reads exactly), and a known method whose params do not
    // fit it (`-32602`, where rmcp would say the method is not found).
    if fast::acceptable(&parts.headers)
        && let message::Decoded::Reply(error, id) = message::decode(&bytes)
    {
        return Err(decode_error(error, id));
    }
    let request = Request::from_parts(parts, HttpBody::from(bytes));
    Ok(Screened {
        request,
        events: receiver,
        hold,
    })
}

/// The 403 of a request whose token lacks the scope of what it names: the tool it calls,
/// the resource it reads or subscribes to, the prompt it gets, the prompt or resource
/// template it completes an argument of, or the task it polls,
/// cancels or updates (the scope of the tool that made the task).
#[cfg(feature = "auth")]
async fn authorize(
    guard: &super::guard::Guard,
    caller: &crate::context::Caller,
    shape: &Shape<'_>,
) -> Result<(), Response> {
    use super::guard::Target;
    let Some(named) = shape.named() else {
        return Ok(());
    };
    let id = || shape.id.and_then(|id| serde_json::from_str(id.get()).ok());
    let target = match (shape.method.as_deref(), &named) {
        (
            Some("tools/call"),
            Named {
                name: Some(name), ..
            },
        ) => Target::Tool(name),
        (
            Some("prompts/get"),
            Named {
                name: Some(name), ..
            },
        ) => Target::Prompt(name),
        (Some("resources/read" | "resources/subscribe"), Named { uri: Some(uri), .. }) => {
            Target::Resource(uri)
        }
        // A completion needs what getting the prompt, or reading the resource, needs.
        (
            Some("completion/complete"),
            Named {
                reference: Some(reference),
                ..
            },
        ) => match (reference.kind.as_deref(), &reference.name, &reference.uri) {
            (Some("ref/prompt"), Some(name), _) => Target::Prompt(name),
            (Some("ref/resource"), _, Some(uri)) => Target::Resource(uri),
            _ => return Ok(()),
        },
        (
            Some("tasks/get" | "tasks/cancel" | "tasks/update" | "tasks/result"),
            Named {
                task_id: Some(task),
                ..
            },
        ) => {
            return match guard.task_refusal(caller, task, id().as_ref()).await {
                Some(refused) => Err(refused),
                None => Ok(()),
            };
        }
        _ => return Ok(()),
    };
    match guard.refusal_of(caller, target, id().as_ref()) {
        Some(refused) => Err(refused),
        None => Ok(()),
    }
}

/// The answer to a message the transport could not hand to rmcp: 400 for one that is not
/// JSON-RPC (`-32700`, `-32600`), 200 for a request whose params do not fit (`-32602`, a
/// JSON-RPC error like any other).
fn decode_error(error: rmcp::model::ErrorData, id: Option<rmcp::model::RequestId>) -> Response {
    let status = match error.code {
        rmcp::model::ErrorCode::INVALID_PARAMS => StatusCode::OK,
        _ => StatusCode::BAD_REQUEST,
    };
    let id = id.and_then(|id| serde_json::to_string(&id).ok());
    body::json_error(status, id.as_deref(), error.code.0, &error.message)
}

/// Whether reading a body failed for its size (not a broken encoding or a reset).
fn over_limit(err: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(err) = cause {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        cause = err.source();
    }
    false
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
