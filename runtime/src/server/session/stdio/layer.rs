//! The session layer in front of rmcp on a stdio session, and its fast path.
//!
//! Every message passes here first. The layer keeps the session's lifecycle and its requests
//! in flight for both paths (`session/lifecycle.rs`). Once a client has negotiated a revision
//! with an `initialize` handshake (2024-11-05 to 2025-11-25), the requests that the one
//! allow-list (`wire/decode.rs`) admits are answered here: `tools/list` from a result
//! serialized once, `tools/call` through the call pipeline, instead of through rmcp's service
//! loop. Everything else (initialize and version negotiation, ping, logging/setLevel,
//! 2026-07-28 sessions, paginated lists, anything unusual) stays with rmcp.
//!
//! Cancellation follows rmcp's rule: a cancelled call gets no response. See BENCHMARKS.md for
//! what the fast path buys.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientNotification, ErrorData, JsonRpcMessage, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio_util::sync::CancellationToken;

use super::channel::StdioChannel;
use crate::request::Transport;
use crate::server::adapter::ToolServer;
use crate::server::call::{CallSetup, Way};
use crate::server::dispatch::FirstStep;
use crate::server::session::lifecycle::{Admit, Lifecycle, Requests, id_in_use};
use crate::server::wire::decode::{FastRequest, Revision, fast_request};
use crate::server::wire::encode;
use crate::transport::stdio::{Outbox, SessionLayer};

/// The session layer of one stdio session, put in front of rmcp.
#[derive(Clone)]
pub(crate) struct StdioLayer(Arc<Layer>);

pub(crate) struct Layer {
    server: Arc<ToolServer>,
    outbox: Outbox,
    /// The session's channel to its client: requests the server sent, awaiting answers.
    channel: Arc<StdioChannel>,
    /// Whether the fast path answers tools requests (off: rmcp answers everything).
    fast: bool,
    lifecycle: Arc<Lifecycle>,
    requests: Requests,
    /// Numbers the calls that continue in a task.
    calls: AtomicU64,
}

impl SessionLayer for StdioLayer {
    fn try_line(&self, line: &[u8]) -> bool {
        if !self.0.fast {
            return false;
        }
        match self.0.lifecycle.serving() {
            Some(revision) => self.0.try_fast(line, revision),
            None => false,
        }
    }

    fn intercept(
        &self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.0.intercept(message)
    }

    fn outgoing(&self, frame: &mut TxJsonRpcMessage<RoleServer>) -> bool {
        let id = match frame {
            JsonRpcMessage::Response(response) => Some(&mut response.id),
            JsonRpcMessage::Error(error) => error.id.as_mut(),
            _ => None,
        };
        if let Some(id) = id {
            // rmcp knows the request by an id of the session's own (see `Requests`).
            match self.0.requests.answered(id) {
                Some(client) => *id = client,
                None => {
                    tracing::debug!("the answer to a cancelled request was dropped");
                    return false;
                }
            }
        }
        self.0.lifecycle.observe(frame);
        true
    }

    fn drain(&self, deadline: Instant) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(self.0.drain(deadline))
    }
}

impl StdioLayer {
    /// The layer of a session served by `server`, answering tools requests itself when
    /// `fast`.
    pub(crate) fn new(
        server: ToolServer,
        outbox: Outbox,
        channel: Arc<StdioChannel>,
        lifecycle: Arc<Lifecycle>,
        fast: bool,
    ) -> Self {
        StdioLayer(Arc::new(Layer {
            server: Arc::new(server),
            outbox,
            channel,
            fast,
            lifecycle,
            requests: Requests::default(),
            calls: AtomicU64::new(0),
        }))
    }
}

impl Layer {
    /// Answers `line` here (`true`) when the allow-list admits it; anything else is left to
    /// rmcp (`false`), which validates it in full.
    fn try_fast(self: &Arc<Self>, line: &[u8], serving: Revision) -> bool {
        let Some(request) = fast_request(line, true) else {
            return false;
        };
        let (id, revision) = match &request {
            FastRequest::Call { id, revision, .. } | FastRequest::List { id, revision } => {
                (id, *revision)
            }
            FastRequest::Discover { id } => (id, Revision::PerRequest),
        };
        // A request in the other revision's shape is rmcp's to answer (or refuse).
        if revision != serving {
            return false;
        }
        if !self.requests.is_free(id) {
            self.refuse(id_in_use(id), id.clone());
            return true;
        }
        match request {
            FastRequest::Call {
                id,
                params,
                revision,
            } => {
                self.call(id, params, revision);
                true
            }
            FastRequest::List { id, revision } => {
                let began = self.server.clock();
                let listed = self.list(id, revision);
                if listed {
                    self.answered(began, "tools/list", revision);
                }
                listed
            }
            FastRequest::Discover { id } => {
                let began = self.server.clock();
                let frame = encode::ResultFrame::to(&id);
                let discover = self.server.cached_discover();
                let end = encode::ResultFrame::END_LINE;
                if let Err(err) = self.outbox.queue_shared(frame.start(), discover, end) {
                    tracing::debug!(%err, "a server/discover response could not be written");
                }
                self.answered(began, "server/discover", Revision::PerRequest);
                true
            }
        }
    }

    /// Takes the client's answers to the server's own requests, applies the session's
    /// lifecycle, refuses an id already in flight, and cancels a fast-path call named by a
    /// `notifications/cancelled` (its response is then never sent). Hands the rest on to
    /// rmcp, each request under an id of the session's own, and a cancellation only of one
    /// of those (see `Requests`).
    fn intercept(
        &self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>> {
        if self.channel.answer(&message) {
            return None;
        }
        match self.lifecycle.admit(&message) {
            Admit::Pass => {}
            Admit::Ignore(why) => {
                tracing::debug!(why, "a message was ignored");
                return None;
            }
            Admit::Refuse(id, error) => {
                self.refuse(error, id);
                return None;
            }
        }
        let mut message = message;
        match &mut message {
            JsonRpcMessage::Request(request) => match self.requests.claim_rmcp(&request.id) {
                Some(alias) => request.id = alias,
                None => {
                    self.refuse(id_in_use(&request.id), request.id.clone());
                    return None;
                }
            },
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &mut notification.notification
                    && let Some(id) = &mut cancelled.params.request_id
                {
                    // rmcp learns of its own requests' cancellations, under its ids.
                    *id = self.requests.cancel(id)?;
                }
            }
            _ => {}
        }
        Some(message)
    }

    /// A `method` request of `revision` answered here, begun at `began` (when measured).
    fn answered(
        &self,
        began: Option<std::time::Instant>,
        method: &'static str,
        revision: Revision,
    ) {
        let version = match revision {
            Revision::PerRequest => Some(&rmcp::model::ProtocolVersion::V_2026_07_28),
            Revision::Negotiated => self.lifecycle.negotiated(),
        };
        self.server
            .answered(began, method, Transport::Pipe, version);
    }

    /// Queues an error response to `id` (the reader writes it).
    fn refuse(&self, error: ErrorData, id: RequestId) {
        let frame = TxJsonRpcMessage::<RoleServer>::error(error, Some(id));
        if let Err(err) = self.outbox.queue(&frame) {
            tracing::debug!(%err, "an error response could not be written");
        }
    }

    /// Queues the cached list, not copied, as the response to `id` (the reader writes it,
    /// see `Outbox::write_now`); `false` when the list is paginated (rmcp's).
    fn list(&self, id: RequestId, revision: Revision) -> bool {
        let local = crate::context::Caller::anonymous();
        let Some(list) = self.server.first_page(&local, revision.per_request()) else {
            return false;
        };
        let frame = encode::ResultFrame::to(&id);
        let end = encode::ResultFrame::END_LINE;
        if let Err(err) = self.outbox.queue_shared(frame.start(), list, end) {
            tracing::debug!(%err, "a tools/list response could not be written");
        }
        true
    }

    /// Runs a call through the pipeline. Its first step runs right here (see
    /// `call/inline.rs`): a call that finishes without waiting is answered without a task or
    /// a thread hop, its response queued for the reader to write. A call that waits
    /// continues in a task of its own; a call of a tool known to block runs on the pool.
    fn call(self: &Arc<Self>, id: RequestId, params: CallToolRequestParams, revision: Revision) {
        let token = CancellationToken::new();
        let mut setup = params
            .meta
            .as_ref()
            .map(CallSetup::of_meta)
            .unwrap_or_default();
        setup.transport = Some(Transport::Pipe);
        // The session's revision, for the metrics only.
        if setup.version.is_none() && self.server.measures() {
            setup.version = self.lifecycle.negotiated().cloned();
        }
        let rest = match self
            .server
            .start_call(params, token.clone(), setup, Way::Stdio)
        {
            FirstStep::Done(answer) => {
                self.respond_now(id, answer, revision);
                return;
            }
            FirstStep::Rest(rest) => rest,
        };
        let number = self.calls.fetch_add(1, Ordering::Relaxed);
        // The id was free when the line was read, and only the reader claims ids.
        self.requests.claim_fast(&id, number, token);
        let layer = self.clone();
        self.server.pipeline.tracker.spawn(async move {
            let answer = rest.await;
            if !layer.requests.finish_fast(&id, number) {
                return; // cancelled: no response
            }
            let frame = encode::response(id, answer, revision.per_request());
            if let Err(err) = layer.outbox.send(&frame).await {
                tracing::debug!(%err, "a tools/call response could not be written");
            }
        });
    }

    fn respond_now(
        &self,
        id: RequestId,
        answer: crate::server::call::CallReply,
        revision: Revision,
    ) {
        let frame = encode::response(id, answer, revision.per_request());
        if let Err(err) = self.outbox.queue(&frame) {
            tracing::debug!(%err, "a tools/call response could not be written");
        }
    }

    /// At the end of input: lets calls in flight finish until `deadline`, then cancels the
    /// rest and says how many.
    async fn drain(&self, deadline: Instant) {
        let tracker = &self.server.pipeline.tracker;
        tracker.close();
        if tokio::time::timeout_at(deadline.into(), tracker.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                running = tracker.len(),
                "tool calls still running at shutdown were cancelled"
            );
        }
        self.requests.cancel_all();
        self.channel.close();
    }
}
