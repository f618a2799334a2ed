//! The session layer in front of rmcp on a stdio session, and its fast path's framing.
//!
//! Every message passes here first. The layer keeps the session's lifecycle and its requests
//! in flight for both paths (`session/lifecycle.rs`). Once a client has negotiated a revision
//! with an `initialize` handshake (2024-11-05 to 2025-11-25), the requests that the one
//! allow-list (`transport/message/request.rs`) admits are answered by the front
//! (`front/answer.rs`): `tools/list` from a result serialized once, `tools/call` through the
//! call pipeline, instead of through rmcp's service loop; here their answers are queued for
//! the reader, or written when a call finishes later. Everything else (initialize and
//! version negotiation, ping, logging/setLevel, 2026-07-28 sessions, paginated lists,
//! anything unusual) stays with rmcp.
//!
//! Cancellation follows rmcp's rule: a cancelled call gets no response. See BENCHMARKS.md for
//! what the fast path buys.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rmcp::RoleServer;
use rmcp::model::{ClientNotification, ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio_util::sync::CancellationToken;

use super::channel::StdioChannel;
use crate::request::Transport;
use crate::server::front::encode::{self, Frame, ResultFrame};
use crate::server::front::{Answer, Asked, CallReply, CallSetup, Front, Way};
use crate::server::session::lifecycle::{Admit, Lifecycle, Requests, id_in_use};
use crate::transport::message::{self, Envelope, FastRequest, Revision};
use crate::transport::stdio::{Outbox, SessionLayer};

/// What a stdio session answers on its fast path: a call may send notifications before its
/// answer (progress); the lifecycle (`initialize`, `ping`) is rmcp's.
const ADMIT: message::Admit = message::Admit {
    notices: true,
    handshakes: false,
};

/// The session layer of one stdio session, put in front of rmcp.
#[derive(Clone)]
pub(crate) struct StdioLayer(Arc<Layer>);

pub(crate) struct Layer {
    front: Arc<Front>,
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
        server: Front,
        outbox: Outbox,
        channel: Arc<StdioChannel>,
        lifecycle: Arc<Lifecycle>,
        fast: bool,
    ) -> Self {
        StdioLayer(Arc::new(Layer {
            front: Arc::new(server),
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
        let Some(request) = Envelope::read(line).and_then(|envelope| envelope.request(ADMIT))
        else {
            return false;
        };
        // A request in the other revision's shape is rmcp's to answer (or refuse).
        let revision = request.revision();
        if revision != serving {
            return false;
        }
        let id = request.id().clone();
        if !self.requests.is_free(&id) {
            self.refuse(id_in_use(&id), id);
            return true;
        }
        let mut setup = match &request {
            FastRequest::Call { params, .. } => params
                .meta
                .as_ref()
                .map(CallSetup::of_meta)
                .unwrap_or_default(),
            _ => CallSetup::default(),
        };
        setup.transport = Some(Transport::Pipe);
        // The session's revision, for the metrics only.
        if setup.version.is_none() && self.front.measures() {
            setup.version = self.lifecycle.negotiated().cloned();
        }
        let asked = Asked::by(Way::Stdio, setup);
        let cancel = asked.cancel.clone();
        let reply = match self.front.answer(request, asked) {
            None => return false,
            Some(Answer::Now(reply)) => reply,
            Some(Answer::Later(rest)) => {
                self.finish_later(id, rest, cancel, revision);
                return true;
            }
        };
        // The reader writes it (see `Outbox::write_now`); a kept result without a copy.
        let written = match encode::frame(id, reply, revision) {
            Frame::Message(message) => self.outbox.queue(&message),
            Frame::Kept(frame, result) => {
                self.outbox
                    .queue_shared(frame.start(), result, ResultFrame::END_LINE)
            }
        };
        if let Err(err) = written {
            tracing::debug!(%err, "a response could not be written");
        }
        true
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

    /// Queues an error response to `id` (the reader writes it).
    fn refuse(&self, error: ErrorData, id: RequestId) {
        let frame = TxJsonRpcMessage::<RoleServer>::error(error, Some(id));
        if let Err(err) = self.outbox.queue(&frame) {
            tracing::debug!(%err, "an error response could not be written");
        }
    }

    /// Runs the rest of a call that waits in a task of the server's tracker, and writes its
    /// answer, unless it was cancelled (`cancel`, by a `notifications/cancelled`).
    fn finish_later(
        self: &Arc<Self>,
        id: RequestId,
        rest: impl Future<Output = CallReply> + Send + 'static,
        cancel: CancellationToken,
        revision: Revision,
    ) {
        let number = self.calls.fetch_add(1, Ordering::Relaxed);
        // The id was free when the line was read, and only the reader claims ids.
        self.requests.claim_fast(&id, number, cancel);
        let layer = self.clone();
        self.front.pipeline.tracker.spawn(async move {
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

    /// At the end of input: lets calls in flight finish until `deadline`, then cancels the
    /// rest and says how many.
    async fn drain(&self, deadline: Instant) {
        let tracker = &self.front.pipeline.tracker;
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
