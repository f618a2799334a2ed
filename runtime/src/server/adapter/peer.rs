//! A call's channel to its client over Streamable HTTP. Its notifications go on its own
//! response, as events (`transport/http/events.rs`), when the client takes event streams;
//! else through the request's rmcp peer, in order, by a task of the call, which waits for
//! them to leave before it answers, so that they precede the result.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ClientCapabilities, ServerRequest};
use rmcp::service::{Peer, RequestContext, ServiceError};
use tokio::sync::{mpsc, oneshot};

use crate::context::{
    ChannelError, ClientChannel, Notice, NoticeSink, Reply, declined, withdrawal,
};
use crate::server::front::Front;
use crate::server::front::notices::{STATELESS, message};
use crate::transport::http::CallEvents;

/// Notifications waiting for the peer past this many are dropped (a later progress report
/// supersedes an earlier one): a client that stops reading cannot grow the server's memory.
const QUEUE: usize = 1024;

/// How long a call waits for its notifications to leave before it answers.
const FLUSH: Duration = Duration::from_secs(5);

enum Item {
    Notice(Notice),
    /// Everything queued before this has been sent.
    Flushed(oneshot::Sender<()>),
}

/// One call's channel to its client on rmcp's path over HTTP: notifications through its
/// request's peer, and requests when the client keeps a session (its answers come back on
/// it); a stateless request has nowhere for an answer to come back to.
pub(crate) struct PeerNotices {
    queue: mpsc::Sender<Item>,
    peer: Peer<RoleServer>,
    /// The server keeps sessions, so a request can be answered.
    sessions: bool,
    /// The call's own response, where its notifications go (rmcp would send a log message
    /// to a session's shared stream, and none in a JSON answer).
    events: Option<CallEvents>,
}

impl PeerNotices {
    /// The notifications of one call on rmcp's path, when its session has no sink of its own
    /// (a transport that answers each request on its own stream).
    pub(crate) fn for_call(
        server: &Front,
        context: &RequestContext<RoleServer>,
    ) -> Option<Arc<PeerNotices>> {
        match &server.notices {
            Some(_) => None,
            None => {
                let events = context
                    .extensions
                    .get::<axum::http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<CallEvents>().cloned());
                Some(PeerNotices::start(
                    context.peer.clone(),
                    server.sessions,
                    events,
                ))
            }
        }
    }

    fn start(
        peer: Peer<RoleServer>,
        sessions: bool,
        events: Option<CallEvents>,
    ) -> Arc<PeerNotices> {
        let (tx, mut rx) = mpsc::channel(QUEUE);
        let sender = peer.clone();
        tokio::spawn(async move {
            while let Some(item) = rx.recv().await {
                let sent = match item {
                    Item::Notice(Notice::Progress(param)) => peer.notify_progress(param).await,
                    Item::Notice(Notice::Log(param)) => peer.notify_logging_message(param).await,
                    Item::Flushed(done) => {
                        let _ = done.send(());
                        continue;
                    }
                };
                if let Err(err) = sent {
                    tracing::debug!(%err, "a notification could not be sent");
                }
            }
        });
        Arc::new(PeerNotices {
            queue: tx,
            peer: sender,
            sessions,
            events,
        })
    }

    /// Waits until every notification queued so far has been sent (at most [`FLUSH`]).
    pub(crate) async fn flush(&self) {
        let (done, sent) = oneshot::channel();
        let flushed = async {
            if self.queue.send(Item::Flushed(done)).await.is_ok() {
                let _ = sent.await;
            }
        };
        if tokio::time::timeout(FLUSH, flushed).await.is_err() {
            tracing::debug!("the client did not take the call's notifications in time");
        }
    }
}

impl NoticeSink for PeerNotices {
    fn notify(&self, notice: Notice) {
        if let Some(events) = &self.events {
            return events.send(message(notice));
        }
        if self.queue.try_send(Item::Notice(notice)).is_err() {
            tracing::debug!("the client is not reading: a notification was dropped");
        }
    }
}

impl ClientChannel for PeerNotices {
    fn capabilities(&self) -> Option<Arc<ClientCapabilities>> {
        // A stateless request's peer knows nothing of the client.
        if !self.sessions {
            return None;
        }
        self.peer
            .peer_info()
            .map(|info| Arc::new(info.capabilities.clone()))
    }

    fn request(&self, request: ServerRequest) -> Reply {
        if !self.sessions {
            return declined(STATELESS);
        }
        let peer = self.peer.clone();
        let failed = |err| match err {
            ServiceError::McpError(error) => ChannelError::Client(error),
            _ => ChannelError::Closed,
        };
        Box::pin(async move {
            let options = rmcp::service::PeerRequestOptions::no_options();
            let handle = peer
                .send_cancellable_request(request, options)
                .await
                .map_err(failed)?;
            // Given up before the answer (the call timed out or was cancelled): the client is
            // told, so that it stops asking its user.
            let withdraw = Withdraw {
                peer: peer.clone(),
                id: Some(handle.id.clone()),
            };
            let answer = handle.await_response().await;
            withdraw.answered();
            answer.map_err(failed)
        })
    }
}

/// A request to the client over a session, until its answer came.
struct Withdraw {
    peer: Peer<RoleServer>,
    id: Option<rmcp::model::RequestId>,
}

impl Withdraw {
    fn answered(mut self) {
        self.id = None;
    }
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            if let Err(err) = peer.send_notification(withdrawal(id)).await {
                tracing::debug!(%err, "a withdrawn request could not be told to the client");
            }
        });
    }
}
