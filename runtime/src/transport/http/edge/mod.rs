//! The edge: what every request passes through before rmcp. Only the endpoint reaches
//! anything MCP; there a request is authenticated (`authorize.rs`: what it names, by the
//! token's scopes), its body read within its limits (`read.rs`), its session screened, a
//! request the server may answer itself offered to the fast path (a session opened there,
//! unless `--stateless`), and what rmcp would misread answered here; a tool call's
//! notifications go on its own response. What screening comes to is `screened.rs`.

#[cfg(feature = "auth")]
mod authorize;
mod read;
mod refused;
mod screened;
mod shared_state;
use refused::{decode_error, refused};
use screened::{Screened, Screening, to_rmcp};

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body as HttpBody;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use futures::FutureExt;
use tokio_util::task::TaskTracker;

use super::headers::MCP_SESSION_ID;
use super::{FastPath, Offer, events, fast, sessions};
use crate::transport::message::{self, Admit, Envelope, FastRequest};
#[cfg(feature = "auth")]
use authorize::authorize;

/// What an HTTP fast path answers: not a call asking for progress (its notifications would
/// need rmcp's stream), but the handshake and `ping` (without state).
const ADMIT: Admit = Admit {
    notices: false,
    handshakes: true,
};

/// The longest `Mcp-Session-Id` the edge lets through, in bytes.
pub(super) const MAX_SESSION_ID: usize = 128;

/// What every request passes through before rmcp.
pub(super) struct Edge {
    /// Every request counts as in flight until its response is made: a stop waits for it.
    pub(super) in_flight: TaskTracker,
    pub(super) max_body: usize,
    /// How long reading a body may take.
    pub(super) body_timeout: Duration,
    /// What the server answers directly: stateless tool requests and handshakes, and with
    /// `--sessions` the sessions it opens and their tool requests.
    pub(super) fast_path: Option<Arc<dyn FastPath>>,
    /// Answers are server-sent event streams, not JSON bodies.
    pub(super) sse: bool,
    /// The `Host`s rmcp accepts, for the fast path's plain check.
    pub(super) hosts: Vec<String>,
    /// The MCP endpoint's path: the only one where anything MCP happens.
    pub(super) endpoint: String,
    /// With `--sessions`: those the server opened, their cap, owners and request ids.
    pub(super) sessions: Option<Arc<sessions::Sessions>>,
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
    // Read only for the debug line (a clock reading per request otherwise).
    let start = tracing::enabled!(tracing::Level::DEBUG).then(Instant::now);
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
            Ok(Screening::Onward(Screened {
                request,
                events,
                admission,
                core,
                gate,
            })) => {
                // A session the server opened goes on with the server's state of it, should
                // rmcp restore it now: one request at a time until rmcp has (`opened.rs`).
                let _restoring = match gate {
                    Some(gate) => gate.pass().await,
                    None => None,
                };
                let served = sessions::scoped(core, next.run(request));
                let response = match events {
                    Some(events) => events::deliver(events, served).await,
                    None => served.await,
                };
                match &edge.sessions {
                    Some(sessions) => sessions.finish(admission, response).await,
                    None => response,
                }
            }
            Ok(Screening::Answered(answer)) => answer,
            Err(refused) => refused,
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
        duration_us = start.map_or(0, |start| start.elapsed().as_micros() as u64),
        "http request"
    );
    response
}

/// Only the MCP endpoint (its exact path) reaches any of this. With authorization, a request
/// to it needs a valid bearer token (401
/// otherwise) and a tool call the scopes its tool needs (403). Then reads a POST's body, at
/// most `max_body` bytes (the one place the limit is enforced): a larger body is answered
/// with 413 and a JSON-RPC error, as the client expects a JSON-RPC answer to its request; a
/// JSON-RPC response POSTed outside a session, where no request of the server waits for it,
/// is accepted (202) and dropped, as the specification says; in a session it goes to rmcp,
/// which hands it to the request it answers. Anything else goes on, its body intact.
async fn screen(mut request: Request, edge: &Edge) -> Result<Screening, Response> {
    // Any other path keeps its own answer (404, or 405 for a wrong method on `/healthz` and
    // the metadata): no body is read there, and nothing MCP runs.
    if request.uri().path() != edge.endpoint {
        return Ok(Screening::Onward(Screened::pass(request)));
    }
    // No session id this server issues is that long (rmcp's are 36-byte UUIDs).
    if request
        .headers()
        .get(&MCP_SESSION_ID)
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
        let mut screened = Screened::pass(request);
        if let Some(sessions) = &edge.sessions {
            let (method, headers) = (screened.request.method(), screened.request.headers());
            screened.admission = sessions.screen(method, headers, who, None).await?;
            // A session that exists and is the caller's: its stream resumes here, or not.
            if let Some(refused) = sessions.resuming(screened.request.headers_mut()) {
                return Err(refused);
            }
            if let Some(route) = screened.admission.route.take() {
                let (core, gate) = route.into_parts();
                (screened.core, screened.gate) = (Some(core), Some(gate));
            }
        }
        return Ok(Screening::Onward(screened));
    }
    let (mut parts, body) = request.into_parts();
    let bytes = read::body(body, edge).await?;
    // The body's envelope, read once: what is screened here, and what the fast path answers.
    let envelope = Envelope::read(&bytes);
    let method = envelope.as_ref().and_then(Envelope::method);
    if crate::trace::active()
        && let Some(envelope) = &envelope
    {
        crate::trace::request_read(method, envelope.id.map(|id| id.get()));
    }
    let mut admission = match &edge.sessions {
        Some(sessions) => {
            let message = envelope
                .as_ref()
                .map(|envelope| (method, envelope.id.map(|id| id.get())));
            sessions
                .screen(&parts.method, &parts.headers, who, message)
                .await?
        }
        None => sessions::Admission::default(),
    };
    // A response in a session may answer a request the server sent: rmcp routes it there
    // (with replicas, the one that asked: `sessions/shared.rs`). Without a session nothing
    // waits for one.
    let session = parts
        .headers
        .get(&MCP_SESSION_ID)
        .and_then(|id| id.to_str().ok());
    if envelope.as_ref().is_some_and(Envelope::is_reply) {
        let answer = match (&edge.sessions, session) {
            (Some(sessions), Some(id)) => {
                sessions
                    .answered(id, &bytes, admission.route.as_ref())
                    .await
            }
            (_, Some(_)) => sessions::Answer::Onward(None),
            (_, None) => sessions::Answer::Accepted,
        };
        match answer {
            sessions::Answer::Accepted => {
                let mut accepted = Response::new(HttpBody::empty());
                *accepted.status_mut() = StatusCode::ACCEPTED;
                return Ok(Screening::Answered(accepted));
            }
            // Under the id rmcp gave the question.
            sessions::Answer::Onward(Some(frame)) => {
                let route = admission.route.take();
                let bytes = axum::body::Bytes::from(frame);
                return Ok(Screening::Onward(to_rmcp(
                    parts, bytes, None, admission, route,
                )));
            }
            sessions::Answer::Onward(None) => {}
            sessions::Answer::Lost => return Err(sessions::store_failed()),
        }
    }
    // What the request changes of its session's state that replicas share.
    if let (Some(sessions), Some(id)) = (&edge.sessions, session) {
        let params = envelope.as_ref().and_then(|e| e.params);
        shared_state::note(sessions, &mut admission, id, method, params, who);
    }
    // What the fast path may answer, decoded once (the params of a call too), when it may.
    let headers = edge
        .fast_path
        .as_ref()
        .and_then(|_| fast::plain(&parts.headers, &edge.hosts, edge.sessions.is_some()));
    let offer = match (&envelope, headers) {
        (Some(envelope), Some(_)) => match envelope.notification() {
            Some((method, params)) => Some(Offer::Notification { method, params }),
            None => envelope.request(ADMIT).map(Offer::Request),
        },
        _ => None,
    };
    #[cfg(feature = "auth")]
    if let Some((guard, caller)) = &caller
        && let Some(envelope) = &envelope
    {
        let call = match &offer {
            Some(Offer::Request(FastRequest::Call { params, .. })) => {
                let named = params.arguments.as_ref().and_then(|a| a.get("name"));
                Some((&*params.name, named.and_then(|n| n.as_str())))
            }
            _ => None,
        };
        authorize(guard, caller, envelope, call).await?;
    }
    // A call's notifications go on its own response, when the client takes event streams.
    let (events, receiver) =
        match method == Some("tools/call") && fast::accepts_events(&parts.headers) {
            true => {
                let (events, receiver) = events::channel();
                (Some(events), Some(receiver))
            }
            false => (None, None),
        };
    // The session it is of, when the server opened it.
    let route = admission.route.take();
    if let (Some(fast_path), Some(offer), Some(headers)) = (&edge.fast_path, offer, headers) {
        // `None`: not for the fast path; else the server's state of its session, if any.
        let session = match (&edge.sessions, &route, offer) {
            (None, _, offer) => Some((None, offer)),
            (Some(_), Some(sessions::SessionRoute::Fast(core, _)), offer) => {
                Some((Some(core), offer))
            }
            (Some(sessions), None, Offer::Request(request @ FastRequest::Initialize { .. }))
                if !parts.headers.contains_key(&MCP_SESSION_ID) =>
            {
                if let Some(opened) = fast_path.open(request, headers) {
                    let id = sessions
                        .opened(admission, opened.core, opened.handshake)
                        .await;
                    let mut response = fast::respond((StatusCode::OK, opened.answer), edge.sse);
                    if let Ok(id) = header::HeaderValue::from_str(&id) {
                        response.headers_mut().insert(MCP_SESSION_ID.clone(), id);
                    }
                    return Ok(Screening::Answered(response));
                }
                None
            }
            // rmcp's session (or none, where one is needed).
            (Some(_), _, _) => None,
        };
        if let Some((session, offer)) = session {
            let caller = parts
                .extensions
                .get::<crate::context::Caller>()
                .cloned()
                .unwrap_or_default();
            let trace = crate::trace::active()
                .then(|| parts.extensions.get::<crate::trace::Handoff>().cloned())
                .flatten();
            if let Some(mut answer) =
                fast_path.answer(offer, headers, caller, events.clone(), trace, session)
            {
                let sse = edge.sse;
                // Most calls end in their first step: without notifications, answered now,
                // not through the events' merging stream.
                let answered = (&mut answer).now_or_never();
                let receiver = match answered {
                    Some(_) => receiver.filter(events::Events::any),
                    None => receiver,
                };
                let answer = async move {
                    let answered = match answered {
                        Some(answered) => answered,
                        None => answer.await,
                    };
                    fast::respond(answered, sse)
                };
                return Ok(Screening::Answered(match receiver {
                    Some(receiver) => events::deliver(receiver, answer).await,
                    None => answer.await,
                }));
            }
        }
    }
    // What rmcp would misread is answered here, as over stdio: JSON the parser cannot read
    // (with the request's id when it reads exactly), and a known method whose params do not
    // fit it (`-32602`, where rmcp would say the method is not found).
    if fast::acceptable(&parts.headers)
        && let message::Decoded::Reply(error, id) = message::decode(&bytes)
    {
        return Err(decode_error(error, id));
    }
    // For rmcp's handler (`adapter/peer.rs`), when it runs the call.
    if let Some(events) = events {
        parts.extensions.insert(events);
    }
    Ok(Screening::Onward(to_rmcp(
        parts, bytes, receiver, admission, route,
    )))
}
