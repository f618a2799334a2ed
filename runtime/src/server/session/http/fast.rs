//! The HTTP fast path (see `transport/http/fast.rs`): a stateless `tools/call`, a first
//! `tools/list` page or `server/discover` that the one allow-list (`wire/decode.rs`) admits,
//! at any revision (on 2026-07-28, with headers that match the body), answered straight from
//! the server in exactly the JSON and status rmcp's service would send; calls run through
//! the call pipeline. Anything else is left to rmcp. A call's log messages go on its own response
//! (`adapter/peer.rs`); a call asking for progress is rmcp's.

use std::sync::Arc;

use axum::http::StatusCode;
use rmcp::RoleServer;
use rmcp::model::{CallToolRequestParams, ErrorCode, JsonRpcMessage, ProtocolVersion, RequestId};
use rmcp::service::TxJsonRpcMessage;
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
use crate::transport::http::{Body, CallEvents, FastPath, McpHeaders};

/// The server, as the HTTP transport's fast path.
pub(crate) struct HttpFastPath {
    server: Arc<ToolServer>,
}

impl HttpFastPath {
    pub(crate) fn new(server: ToolServer) -> HttpFastPath {
        HttpFastPath {
            server: Arc::new(server),
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
    ) -> Option<Body> {
        let request = fast_request(body, false)?;
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
            FastRequest::Call {
                id,
                params,
                revision,
            } => Some(self.call(id, params, (revision, version), caller, events, trace)),
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
}

impl HttpFastPath {
    fn call(
        &self,
        id: RequestId,
        params: CallToolRequestParams,
        (revision, version): (Revision, Option<ProtocolVersion>),
        caller: Caller,
        events: Option<CallEvents>,
        trace: Option<crate::trace::Handoff>,
    ) -> Body {
        let server = self.server.clone();
        Box::pin(async move {
            let token = CancellationToken::new();
            // A client that goes away drops this future: the call's token is cancelled, and a
            // call still running goes on in its own task to see it, as on rmcp's path.
            let cancel_on_drop = token.clone().drop_guard();
            let meta = params.meta.as_ref().map(CallSetup::of_meta);
            let mut setup = CallSetup {
                caller,
                sink: events.map(|events| Arc::new(EventNotices(events)) as _),
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
        let mut body = encode::result_prefix(&id);
        body.extend_from_slice(self.server.cached_discover().as_bytes());
        body.push(b'}');
        Box::pin(async move { (StatusCode::OK, body) })
    }

    /// A first page (`ToolServer::first_page`), when it fits on one.
    fn list(&self, id: RequestId, revision: Revision, caller: &Caller) -> Option<Body> {
        let prefix = encode::result_prefix(&id);
        let list = self.server.first_page(caller, revision.per_request())?;
        Some(Box::pin(async move {
            let mut body = Vec::with_capacity(prefix.len() + list.len() + 1);
            body.extend_from_slice(&prefix);
            body.extend_from_slice(list.as_bytes());
            body.push(b'}');
            (StatusCode::OK, body)
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
