//! The HTTP fast path (see `transport/http/fast.rs`): its framing only. The edge reads a
//! POST's envelope once and offers what the one allow-list admits
//! (`transport/message/request.rs`); here the headers are checked against the body, the
//! front answers (`front/answer.rs`), and the answer goes out in exactly the JSON and status
//! rmcp's service would send: a stateless `tools/call`, a first `tools/list` page or
//! `server/discover` at any revision (on 2026-07-28, with headers that match the body);
//! before 2026-07-28 also what needs no state at all: `initialize` (its result serialized
//! once per revision asked for), `ping`, and notifications (accepted, as rmcp accepts and
//! drops them outside a session). Anything else is left to rmcp. A call's log messages go on
//! its own response (`front/notices.rs`); a call asking for progress is rmcp's.
//!
//! With sessions, an `initialize` opens one here (`fast_session.rs`: a map entry the transport keeps,
//! no service), and the session's calls, first pages, pings, `notifications/initialized` and
//! `notifications/cancelled` are answered here too, with the session's own handler; the
//! first request of it the fast path does not answer moves the session to rmcp's service.

use std::sync::Arc;

use axum::http::StatusCode;
use rmcp::RoleServer;
use rmcp::model::{ErrorCode, JsonRpcMessage};
use rmcp::service::TxJsonRpcMessage;
use tokio_util::sync::CancellationToken;

use crate::context::Caller;
use crate::request::Transport;
use crate::server::front::encode::{self, Frame};
use crate::server::front::notices::EventNotices;
use crate::server::front::{Answer, Asked, CallSetup, Front, Reply, Way, lost};
use crate::transport::http::{
    Adopter, Body, CallEvents, FastPath, McpHeaders, Offer, OpenedSession, SessionCore,
};
use crate::transport::message::{FastRequest, Revision};

use super::fast_session::FastSession;

/// The server, as the HTTP transport's fast path.
pub(crate) struct HttpFastPath {
    front: Arc<Front>,
    /// The server keeps sessions: a request outside one is rmcp's to refuse (but
    /// `initialize`, which opens one).
    sessions: bool,
}

impl HttpFastPath {
    pub(crate) fn new(server: Front, sessions: bool) -> HttpFastPath {
        HttpFastPath {
            front: Arc::new(server),
            sessions,
        }
    }
}

impl FastPath for HttpFastPath {
    fn answer(
        &self,
        offer: Offer<'_>,
        headers: McpHeaders<'_>,
        caller: Caller,
        events: Option<CallEvents>,
        trace: Option<crate::trace::Handoff>,
        session: Option<&SessionCore>,
    ) -> Option<Body> {
        let opened = match (self.sessions, session) {
            (false, _) => None,
            (true, None) => return None,
            (true, Some(core)) => Some(FastSession::of(core)?),
        };
        let request = match offer {
            Offer::Notification { method, params } => {
                return self.notified(method, params, headers, opened.as_deref());
            }
            Offer::Request(request) => request,
        };
        if !self.admits(&request, headers, opened.as_deref()) {
            return None;
        }
        // The revision the request is of (its own on 2026-07-28, else its header's), for the
        // metrics only.
        let version = headers
            .version
            .filter(|_| self.front.measures())
            .and_then(crate::request::known_version);
        let front = match &opened {
            Some(opened) => opened.server.clone(),
            None => self.front.clone(),
        };
        let (id, revision, method) = (request.id().clone(), request.revision(), request.method());
        let mut setup = match &request {
            FastRequest::Call { params, .. } => {
                let meta = params.meta.as_ref().map(CallSetup::of_meta);
                let sink = match &opened {
                    None => events.map(|events| EventNotices {
                        events: Some(events),
                        capabilities: None,
                    }),
                    Some(opened) => Some(EventNotices {
                        events,
                        capabilities: Some(opened.capabilities.clone()),
                    }),
                };
                CallSetup {
                    caller,
                    sink: sink.map(|sink| Arc::new(sink) as _),
                    // Explicit: a blocking call runs on a pool thread, outside the request's
                    // span.
                    trace,
                    ..meta.unwrap_or_default()
                }
            }
            _ => CallSetup {
                caller,
                ..CallSetup::default()
            },
        };
        setup.transport = Some(Transport::Tcp);
        if setup.version.is_none() {
            setup.version = version;
        }
        // In a session: its `notifications/cancelled` and its end stop the call too.
        let (cancel, running) = match (&opened, &request) {
            (Some(opened), FastRequest::Call { .. }) => {
                let (token, running) = opened.running(&id);
                (token, Some(running))
            }
            _ => (CancellationToken::new(), None),
        };
        let asked = Asked {
            way: Way::Http,
            setup,
            cancel: cancel.clone(),
        };
        match front.answer(request, asked)? {
            Answer::Now(reply) => {
                if let Reply::Pong | Reply::Handshake { .. } = reply {
                    tracing::debug!(method, "answered without a service");
                }
                let answer = respond(encode::frame(id, reply, revision), revision);
                Some(Box::pin(std::future::ready(answer)))
            }
            Answer::Later(rest) => Some(Box::pin(async move {
                let _running = running;
                // A client that goes away drops this future: the call's token is cancelled,
                // and the call goes on in its own task to see it, as on rmcp's path.
                let cancel_on_drop = cancel.drop_guard();
                let tracker = &front.pipeline.tracker;
                let answer = tracker.spawn(rest).await.unwrap_or_else(lost);
                cancel_on_drop.disarm();
                respond(encode::frame(id, Reply::Call(answer), revision), revision)
            })),
        }
    }

    fn open(&self, request: FastRequest, headers: McpHeaders<'_>) -> Option<OpenedSession> {
        if !self.sessions || headers.per_request {
            return None;
        }
        let FastRequest::Initialize { id, params } = request else {
            return None;
        };
        // rmcp refuses a revision header that is not the one asked for.
        if headers
            .version
            .is_some_and(|v| v != params.protocol_version.as_str())
        {
            return None;
        }
        let handshake = (*params).clone();
        let request = FastRequest::Initialize {
            id: id.clone(),
            params,
        };
        let setup = CallSetup {
            transport: Some(Transport::Tcp),
            ..CallSetup::default()
        };
        let Answer::Now(reply) = self.front.answer(request, Asked::by(Way::Http, setup))? else {
            return None;
        };
        let Reply::Handshake { agreed, .. } = &reply else {
            return None;
        };
        let server = self.front.for_session();
        server.opened(agreed);
        let opened = FastSession::new(server, handshake.capabilities.clone());
        let Frame::Kept(frame, result) = encode::frame(id, reply, Revision::Negotiated) else {
            return None;
        };
        tracing::debug!(method = "initialize", "a session opened without a service");
        Some(OpenedSession {
            answer: frame.around(result.as_bytes()),
            handshake,
            core: Arc::new(opened),
        })
    }
}

impl Adopter for HttpFastPath {
    fn adopt(
        &self,
        handshake: &rmcp::model::InitializeRequestParams,
        level: Option<&str>,
    ) -> Option<SessionCore> {
        if !self.sessions {
            return None;
        }
        Some(Arc::new(self.adopted(handshake, level)?))
    }
}

impl HttpFastPath {
    /// A session another replica opened with `handshake`: its own handler, as `open` makes
    /// it, at `level` when the client set one.
    fn adopted(
        &self,
        handshake: &rmcp::model::InitializeRequestParams,
        level: Option<&str>,
    ) -> Option<FastSession> {
        let agreed = self.front.agreed(handshake.protocol_version.clone())?;
        let server = self.front.for_session();
        server.opened(&agreed);
        let session = FastSession::new(server, handshake.capabilities.clone());
        if let Some(level) = level {
            crate::transport::http::Session::set_level(&session, level);
        }
        Some(session)
    }

    /// Whether the fast path answers `request` with these `headers`: on 2026-07-28 the
    /// headers must say what the body says (rmcp answers a mismatch); `initialize` and
    /// `ping` come before 2026-07-28 (whose requests carry their revision), and in a session
    /// the server opened (`opened`) only `ping`; a call of a client that can be asked something
    /// is asked in rmcp's session.
    fn admits(
        &self,
        request: &FastRequest,
        headers: McpHeaders<'_>,
        opened: Option<&FastSession>,
    ) -> bool {
        let name = match request {
            FastRequest::Initialize { params, .. } => {
                // With sessions, `open` answers it (and in a session it is rmcp's error);
                // rmcp refuses a revision header that is not the one asked for.
                return !headers.per_request
                    && !self.sessions
                    && headers
                        .version
                        .is_none_or(|v| v == params.protocol_version.as_str());
            }
            FastRequest::Ping { .. } => return !headers.per_request,
            FastRequest::Call { .. } if opened.is_some_and(|opened| opened.asks) => return false,
            FastRequest::Call { params, .. } => Some(params.name.as_ref()),
            FastRequest::List { .. } | FastRequest::Discover { .. } => None,
        };
        if request.revision().per_request() != headers.per_request {
            return false;
        }
        !headers.per_request
            || (headers.method == Some(request.method())
                && name.is_none_or(|name| {
                    headers.name == Some(name)
                        && !self.front.catalogs.peek().param_headers.contains(name)
                }))
    }

    /// A notification, before 2026-07-28: accepted (outside a session there is nothing for
    /// one to change; rmcp accepts it and drops it). In a session the server opened, only
    /// `notifications/initialized` and `notifications/cancelled` (its call stops).
    fn notified(
        &self,
        method: &str,
        params: &str,
        headers: McpHeaders<'_>,
        opened: Option<&FastSession>,
    ) -> Option<Body> {
        if headers.per_request {
            return None;
        }
        match (opened, method) {
            (None, _) | (Some(_), "notifications/initialized") => {}
            (Some(opened), "notifications/cancelled") => opened.cancel(params)?,
            (Some(_), _) => return None,
        }
        tracing::debug!(method = "notification", "answered without a service");
        Some(Box::pin(std::future::ready((
            StatusCode::ACCEPTED,
            Vec::new(),
        ))))
    }
}

/// An answer's status and body.
fn respond(frame: Frame, revision: Revision) -> (StatusCode, Vec<u8>) {
    let status = match &frame {
        Frame::Message(message) => status(message, revision),
        Frame::Kept(..) => StatusCode::OK,
    };
    (status, frame.into_bytes())
}

/// The HTTP status of an answer, as rmcp gives it: on 2026-07-28 an error the request
/// itself caused is a 4xx (unsupported revision, missing capability, header mismatch: 400;
/// unknown method: 404); every other answer, and every answer of an earlier revision, is
/// 200.
fn status(frame: &TxJsonRpcMessage<RoleServer>, revision: Revision) -> StatusCode {
    let JsonRpcMessage::Error(error) = frame else {
        return StatusCode::OK;
    };
    if !revision.per_request() {
        return StatusCode::OK;
    }
    match error.error.code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}
