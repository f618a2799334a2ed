//! The HTTP fast path (see `transport/http/fast.rs`): a stateless `tools/call`, a first
//! `tools/list` page or `server/discover` that the one allow-list (`wire/decode.rs`) admits,
//! at any revision (on 2026-07-28, with headers that match the body), answered straight from
//! the server in exactly the JSON and status rmcp's service would send; calls run through
//! the call pipeline. Before 2026-07-28 also what needs no state at all (`wire/stateless.rs`):
//! `initialize` (its result serialized once per revision asked for), `ping`, and
//! notifications (accepted, as rmcp accepts and drops them outside a session). Anything else
//! is left to rmcp. A call's log messages go on its own response (`adapter/peer.rs`); a call
//! asking for progress is rmcp's.
//!
//! With sessions, an `initialize` opens one here (`seat.rs`: a map entry the transport keeps,
//! no service), and the session's calls, first pages, pings, `notifications/initialized` and
//! `notifications/cancelled` are answered here too, with the session's own handler; the
//! first request of it the fast path does not answer moves the session to rmcp's service.

use std::sync::{Arc, OnceLock};

use axum::http::StatusCode;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ErrorCode, Implementation, InitializeRequestParams,
    JsonRpcMessage, ProtocolVersion, RequestId, ServerResult,
};
use rmcp::service::TxJsonRpcMessage;
use rmcp::{RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

use crate::context::Caller;
use crate::request::Transport;
use crate::server::adapter::EventNotices;
use crate::server::adapter::ToolServer;
use crate::server::call::{CallReply, lost};
use crate::server::call::{CallSetup, Way};
use crate::server::dispatch::FirstStep;
use crate::server::wire::decode::{FastRequest, Revision, fast_request};
use crate::server::wire::encode;
use crate::server::wire::stateless::{Stateless, stateless_request};
use crate::transport::http::{Body, CallEvents, FastPath, McpHeaders, Opened, SessionCore};

use super::seat::Seat;

/// The server, as the HTTP transport's fast path.
pub(crate) struct HttpFastPath {
    server: Arc<ToolServer>,
    /// `initialize`'s answer by the revision asked for (each of rmcp's known revisions, then
    /// any other): the revision agreed and the result's JSON, or `None` where rmcp refuses.
    handshakes: Box<[OnceLock<Option<Handshake>>]>,
    /// The server keeps sessions: a request outside one is rmcp's to refuse (but
    /// `initialize`, which opens one).
    sessions: bool,
}

/// An `initialize` result, serialized once.
struct Handshake {
    agreed: ProtocolVersion,
    result: Box<str>,
}

impl HttpFastPath {
    pub(crate) fn new(server: ToolServer, sessions: bool) -> HttpFastPath {
        let revisions = ProtocolVersion::KNOWN_VERSIONS.len() + 1;
        HttpFastPath {
            server: Arc::new(server),
            handshakes: (0..revisions).map(|_| OnceLock::new()).collect(),
            sessions,
        }
    }
}

impl FastPath for HttpFastPath {
    fn answer(
        &self,
        body: &[u8],
        headers: McpHeaders<'_>,
        caller: Caller,
        events: Option<CallEvents>,
        trace: Option<crate::trace::Handoff>,
        session: Option<&SessionCore>,
    ) -> Option<Body> {
        let seat = match (self.sessions, session) {
            (false, _) => None,
            (true, None) => return None,
            (true, Some(core)) => Some(Seat::of(core)?),
        };
        let Some(request) = fast_request(body, false) else {
            return self.stateless(body, headers, seat.as_deref());
        };
        // On 2026-07-28 the headers must say what the body says (rmcp answers a mismatch).
        let (method, name, revision) = match &request {
            FastRequest::Call {
                params, revision, ..
            } => ("tools/call", Some(params.name.as_ref()), *revision),
            FastRequest::List { revision, .. } => ("tools/list", None, *revision),
            FastRequest::Discover { .. } => ("server/discover", None, Revision::PerRequest),
        };
        if revision.per_request() != headers.per_request {
            return None;
        }
        if headers.per_request
            && (headers.method != Some(method)
                || name.is_some_and(|name| {
                    headers.name != Some(name)
                        || self.server.catalogs.peek().param_headers.contains(name)
                }))
        {
            return None;
        }
        // The revision the request is of (its own on 2026-07-28, else its header's), for the
        // metrics only.
        let version = headers
            .version
            .filter(|_| self.server.measures())
            .and_then(crate::request::known_version);
        match request {
            // A client that can be asked something is asked in rmcp's session.
            FastRequest::Call { .. } if seat.as_ref().is_some_and(|seat| seat.asks) => None,
            FastRequest::Call {
                id,
                params,
                revision,
            } => {
                let call = Call {
                    caller,
                    events,
                    trace,
                    seat,
                };
                Some(self.call(id, params, (revision, version), call))
            }
            FastRequest::List { id, revision } => {
                let began = self.server.clock();
                let list = self.list(id, revision, &caller)?;
                self.server
                    .answered(began, "tools/list", Transport::Tcp, version.as_ref());
                Some(list)
            }
            FastRequest::Discover { id } => {
                let began = self.server.clock();
                let discover = self.discover(id);
                self.server
                    .answered(began, "server/discover", Transport::Tcp, version.as_ref());
                Some(discover)
            }
        }
    }

    fn open(&self, body: &[u8], headers: McpHeaders<'_>) -> Option<Opened> {
        if !self.sessions || headers.per_request {
            return None;
        }
        let Stateless::Initialize { id, params } = stateless_request(body)? else {
            return None;
        };
        let version = params.protocol_version.clone();
        // rmcp refuses a revision header that is not the one asked for.
        if headers.version.is_some_and(|v| v != version.as_str()) {
            return None;
        }
        let began = self.server.clock();
        let handshake = self.handshake(version)?;
        let answer = initialize_answer(&id, handshake);
        let server = self.server.for_session();
        server.opened(&handshake.agreed);
        let seat = Seat::new(server, params.capabilities.clone());
        self.server
            .answered(began, "initialize", Transport::Tcp, Some(&handshake.agreed));
        tracing::debug!(method = "initialize", "a session opened without a service");
        Some(Opened {
            answer,
            handshake: *params,
            core: Arc::new(seat),
        })
    }
}

/// What a call on the fast path comes with besides its request.
struct Call {
    caller: Caller,
    events: Option<CallEvents>,
    trace: Option<crate::trace::Handoff>,
    /// The session it is of, when the server opened it.
    seat: Option<Arc<Seat>>,
}

/// The JSON-RPC response to `initialize` `id`.
fn initialize_answer(id: &RequestId, handshake: &Handshake) -> Vec<u8> {
    encode::ResultFrame::to(id).around(handshake.result.as_bytes())
}

impl HttpFastPath {
    /// `initialize`, `ping` or a notification, before 2026-07-28 (whose requests carry their
    /// revision, and whose headers rmcp checks against the body). In a session the server
    /// opened (`seat`), only `ping`, `notifications/initialized` and `notifications/cancelled`.
    fn stateless(&self, body: &[u8], headers: McpHeaders<'_>, seat: Option<&Seat>) -> Option<Body> {
        if headers.per_request {
            return None;
        }
        let accepted = (StatusCode::ACCEPTED, Vec::new());
        let (method, answer) = match stateless_request(body)? {
            Stateless::Notification { method, params } => match (seat, &*method) {
                (None, _) => ("notification", accepted),
                (Some(_), "notifications/initialized") => ("notification", accepted),
                (Some(seat), "notifications/cancelled") => {
                    seat.cancel(params)?;
                    ("notification", accepted)
                }
                (Some(_), _) => return None,
            },
            Stateless::Ping { id } => {
                let began = self.server.clock();
                let answer = encode::ResultFrame::to(&id).around(b"{}");
                let version = headers
                    .version
                    .filter(|_| self.server.measures())
                    .and_then(crate::request::known_version);
                self.server
                    .answered(began, "ping", Transport::Tcp, version.as_ref());
                ("ping", (StatusCode::OK, answer))
            }
            // With sessions, `open` answers it (and in a session it is rmcp's error).
            Stateless::Initialize { .. } if self.sessions => return None,
            Stateless::Initialize { id, params } => {
                let version = params.protocol_version;
                // rmcp refuses a revision header that is not the one asked for.
                if headers.version.is_some_and(|v| v != version.as_str()) {
                    return None;
                }
                let began = self.server.clock();
                let handshake = self.handshake(version)?;
                let answer = initialize_answer(&id, handshake);
                self.server
                    .answered(began, "initialize", Transport::Tcp, Some(&handshake.agreed));
                ("initialize", (StatusCode::OK, answer))
            }
        };
        tracing::debug!(method, "answered without a service");
        Some(Box::pin(std::future::ready(answer)))
    }

    /// The answer to an `initialize` asking for `asked`, as the server's handler negotiates it
    /// (`None` where it refuses: rmcp then answers with its error). Negotiation reads only
    /// the revision asked for.
    fn handshake(&self, asked: ProtocolVersion) -> Option<&Handshake> {
        let slot = ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .position(|known| *known == asked)
            .unwrap_or(ProtocolVersion::KNOWN_VERSIONS.len());
        self.handshakes[slot]
            .get_or_init(|| {
                let params = InitializeRequestParams::new(
                    ClientCapabilities::default(),
                    Implementation::new("client", "0"),
                )
                .with_protocol_version(asked);
                let result = self.server.negotiate_initialize(&params).ok()?;
                let agreed = result.protocol_version.clone();
                let result = serde_json::to_string(&ServerResult::InitializeResult(result)).ok()?;
                Some(Handshake {
                    agreed,
                    result: result.into(),
                })
            })
            .as_ref()
    }

    fn call(
        &self,
        id: RequestId,
        params: CallToolRequestParams,
        (revision, version): (Revision, Option<ProtocolVersion>),
        call: Call,
    ) -> Body {
        let Call {
            caller,
            events,
            trace,
            seat,
        } = call;
        let server = match &seat {
            Some(seat) => seat.server.clone(),
            None => self.server.clone(),
        };
        Box::pin(async move {
            // In a session: its `notifications/cancelled` and its end stop the call too.
            let (token, _running) = match &seat {
                Some(seat) => {
                    let (token, running) = seat.running(&id);
                    (token, Some(running))
                }
                None => (CancellationToken::new(), None),
            };
            // A client that goes away drops this future: the call's token is cancelled, and a
            // call still running goes on in its own task to see it, as on rmcp's path.
            let cancel_on_drop = token.clone().drop_guard();
            let sink = match &seat {
                None => events.map(|events| EventNotices {
                    events: Some(events),
                    capabilities: None,
                }),
                Some(seat) => Some(EventNotices {
                    events,
                    capabilities: Some(seat.capabilities.clone()),
                }),
            };
            let meta = params.meta.as_ref().map(CallSetup::of_meta);
            let mut setup = CallSetup {
                caller,
                sink: sink.map(|sink| Arc::new(sink) as _),
                // Explicit: a blocking call runs on a pool thread, outside the request's span.
                trace,
                ..meta.unwrap_or_default()
            };
            setup.transport = Some(Transport::Tcp);
            if setup.version.is_none() {
                setup.version = version;
            }
            let answer: CallReply = match server.start_call(params, token, setup, Way::Http) {
                FirstStep::Done(answer) => answer,
                FirstStep::Rest(rest) => {
                    let tracker = &server.pipeline.tracker;
                    tracker.spawn(rest).await.unwrap_or_else(lost)
                }
            };
            cancel_on_drop.disarm();
            let frame = encode::response(id, answer, revision.per_request());
            (status(&frame, revision), encode::to_bytes(&frame))
        })
    }

    fn discover(&self, id: RequestId) -> Body {
        let body = encode::ResultFrame::to(&id).around(self.server.cached_discover().as_bytes());
        Box::pin(async move { (StatusCode::OK, body) })
    }

    /// A first page (`ToolServer::first_page`), when it fits on one.
    fn list(&self, id: RequestId, revision: Revision, caller: &Caller) -> Option<Body> {
        let frame = encode::ResultFrame::to(&id);
        let list = self.server.first_page(caller, revision.per_request())?;
        Some(Box::pin(async move {
            (StatusCode::OK, frame.around(list.as_bytes()))
        }))
    }
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
