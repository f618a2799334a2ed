//! A stdio session's channel to its client: the tools' notifications, queued in the session's
//! outbox in the order they are sent, and requests to the client under ids of the server's
//! own (`toolsmith-N`), whose responses the session layer hands back here before rmcp sees
//! them.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::RoleServer;
use rmcp::model::{ClientCapabilities, ClientResult, JsonRpcMessage, RequestId, ServerRequest};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio::sync::oneshot;

use crate::context::{
    ChannelError, ClientChannel, Notice, NoticeSink, Reply, declined, withdrawal,
};
use crate::server::session::lifecycle::Lifecycle;
use crate::transport::stdio::Outbox;

/// Past this many bytes waiting for a client that does not read, notifications are dropped
/// (a later progress report supersedes an earlier one); responses never are.
pub(crate) const NOTICE_BACKLOG: usize = 1 << 20;

type Waiting = oneshot::Sender<Result<ClientResult, ChannelError>>;

/// One stdio session's channel to its client.
pub(crate) struct StdioChannel {
    outbox: Outbox,
    /// The session's lifecycle, which remembers what the client declared.
    lifecycle: Arc<Lifecycle>,
    /// Requests sent and not yet answered, by id.
    waiting: Arc<Mutex<HashMap<RequestId, Waiting>>>,
    next: AtomicU64,
}

impl StdioChannel {
    pub(crate) fn new(outbox: Outbox, lifecycle: Arc<Lifecycle>) -> Self {
        StdioChannel {
            outbox,
            lifecycle,
            waiting: Arc::default(),
            next: AtomicU64::new(1),
        }
    }

    /// At the end of the session: whoever still waits for an answer learns that it ended.
    pub(crate) fn close(&self) {
        self.waiting().clear();
    }

    /// Takes `message` when it answers a request of this channel (`true`): the one waiting
    /// gets the result, or the client's error.
    pub(crate) fn answer(&self, message: &RxJsonRpcMessage<RoleServer>) -> bool {
        let (id, answer) = match message {
            JsonRpcMessage::Response(response) => (&response.id, Ok(response.result.clone())),
            JsonRpcMessage::Error(error) => match &error.id {
                Some(id) => (id, Err(ChannelError::Client(error.error.clone()))),
                None => return false,
            },
            _ => return false,
        };
        let Some(waiting) = self.waiting().remove(id) else {
            return false;
        };
        // The call may have ended meanwhile: then nobody waits for the answer.
        let _ = waiting.send(answer);
        true
    }

    fn waiting(&self) -> MutexGuard<'_, HashMap<RequestId, Waiting>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl NoticeSink for StdioChannel {
    fn notify(&self, notice: Notice) {
        if self.outbox.backlog() > NOTICE_BACKLOG {
            tracing::debug!("the client is not reading: a notification was dropped");
            return;
        }
        let frame = TxJsonRpcMessage::<RoleServer>::notification(notice.into_notification());
        match self.outbox.queue(&frame) {
            Ok(()) => self.outbox.write_soon(),
            Err(err) => tracing::debug!(%err, "a notification could not be sent"),
        }
    }
}

impl ClientChannel for StdioChannel {
    fn capabilities(&self) -> Option<Arc<ClientCapabilities>> {
        self.lifecycle.capabilities()
    }

    fn request(&self, request: ServerRequest) -> Reply {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("toolsmith-{number}").into());
        let (tx, rx) = oneshot::channel();
        self.waiting().insert(id.clone(), tx);
        let frame = TxJsonRpcMessage::<RoleServer>::request(request, id.clone());
        if let Err(err) = self.outbox.queue(&frame) {
            tracing::debug!(%err, "a request to the client could not be sent");
            self.waiting().remove(&id);
            return declined(ChannelError::Closed);
        }
        self.outbox.write_soon();
        // Given up before the answer (the call timed out or was cancelled): the client is told,
        // so that it stops asking its user, and a late answer finds nobody waiting.
        let forget = Forget {
            id: Some(id),
            waiting: self.waiting.clone(),
            outbox: self.outbox.clone(),
        };
        // Dropped with the session: whoever still waits learns that it ended.
        Box::pin(async move {
            let answer = rx.await.unwrap_or(Err(ChannelError::Closed));
            forget.answered();
            answer
        })
    }

    fn backed_up(&self) -> Option<Pin<Box<dyn Future<Output = ()> + Send + '_>>> {
        if !self.outbox.backed_up() {
            return None;
        }
        // A failed output ends the session; the call's answer then goes nowhere.
        Some(Box::pin(async move {
            let _ = self.outbox.room().await;
        }))
    }
}

/// A request to the client, until its answer came.
struct Forget {
    id: Option<RequestId>,
    waiting: Arc<Mutex<HashMap<RequestId, Waiting>>>,
    outbox: Outbox,
}

impl Forget {
    fn answered(mut self) {
        self.id = None;
    }
}

impl Drop for Forget {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let removed = self
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        if removed.is_none() {
            return;
        }
        let frame = TxJsonRpcMessage::<RoleServer>::notification(withdrawal(id));
        if self.outbox.queue(&frame).is_ok() {
            self.outbox.write_soon();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rmcp::RoleServer;
    use rmcp::model::{ClientCapabilities, ClientResult, ServerRequest};
    use rmcp::service::RxJsonRpcMessage;
    use serde_json::{Value, json};
    use tokio::io::{AsyncBufReadExt, BufReader};

    use super::StdioChannel;
    use crate::context::{ChannelError, ClientChannel, permits};
    use crate::server::session::lifecycle::{Admit, Lifecycle};
    use crate::transport::stdio::Outbox;

    fn elicitation() -> ServerRequest {
        serde_json::from_value(json!({"method": "elicitation/create", "params": {
            "mode": "form", "message": "Delete note 1?",
            "requestedSchema": {"type": "object", "properties": {
                "confirm": {"type": "boolean"}}}}}))
        .expect("an elicitation request")
    }

    fn from_client(value: Value) -> RxJsonRpcMessage<RoleServer> {
        serde_json::from_value(value).expect("a client message")
    }

    #[tokio::test]
    async fn a_request_gets_the_answer_to_its_own_id() {
        let (server_end, client_end) = tokio::io::duplex(64 * 1024);
        let channel = Arc::new(StdioChannel::new(Outbox::new(server_end), Arc::default()));
        let mut lines = BufReader::new(client_end).lines();
        let first = channel.request(elicitation());
        let second = channel.request(elicitation());
        let sent: Vec<Value> = vec![
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap(),
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap(),
        ];
        assert_eq!(sent[0]["method"], "elicitation/create");
        assert_eq!(sent[0]["params"]["message"], "Delete note 1?");
        let (a, b) = (sent[0]["id"].clone(), sent[1]["id"].clone());
        assert_ne!(a, b, "each request has its own id");
        assert!(a.as_str().unwrap().starts_with("toolsmith-"), "{a}");
        // An answer to an id the channel never sent is not its own: rmcp gets it.
        let stranger = from_client(json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
        assert!(!channel.answer(&stranger));
        // Answered out of order: each gets its own.
        let declined =
            from_client(json!({"jsonrpc": "2.0", "id": b, "result": {"action": "decline"}}));
        assert!(channel.answer(&declined));
        let failed = from_client(json!({"jsonrpc": "2.0", "id": a,
            "error": {"code": -32600, "message": "no"}}));
        assert!(channel.answer(&failed));
        let Ok(ClientResult::ElicitResult(result)) = second.await else {
            panic!("the second request gets the decline");
        };
        assert_eq!(serde_json::to_value(&result.action).unwrap(), "decline");
        let Err(ChannelError::Client(error)) = first.await else {
            panic!("the first request gets the client's error");
        };
        assert_eq!(error.message, "no");
        // Answered once: the same answer again is not the channel's any more.
        assert!(!channel.answer(&declined));
    }

    #[tokio::test]
    async fn a_request_left_waiting_learns_that_the_session_ended() {
        let (server_end, _client_end) = tokio::io::duplex(64 * 1024);
        let channel = StdioChannel::new(Outbox::new(server_end), Arc::default());
        let reply = channel.request(elicitation());
        channel.close();
        assert_eq!(reply.await.unwrap_err(), ChannelError::Closed);
    }

    #[tokio::test]
    async fn what_the_client_declared_decides_what_may_be_asked() {
        let (server_end, _client_end) = tokio::io::duplex(1024);
        let lifecycle = Arc::new(Lifecycle::default());
        let channel = StdioChannel::new(Outbox::new(server_end), lifecycle.clone());
        assert!(channel.capabilities().is_none(), "unknown until initialize");
        assert_eq!(
            permits(None, &elicitation()),
            Ok(()),
            "unknown: the client decides"
        );
        let initialize = from_client(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
            "clientInfo": {"name": "t", "version": "0"}}}));
        assert!(matches!(lifecycle.admit(&initialize), Admit::Pass));
        let declared = channel.capabilities();
        assert!(
            declared.as_ref().is_some_and(|c| c.roots.is_some()),
            "{declared:?}"
        );
        assert_eq!(
            permits(declared.as_deref(), &elicitation()),
            Err(ChannelError::NotDeclared("elicitation"))
        );
        let mut with = ClientCapabilities::default();
        with.elicitation = Some(Default::default());
        assert_eq!(permits(Some(&with), &elicitation()), Ok(()));
    }
}

#[cfg(test)]
mod call_tests {
    use std::sync::Arc;

    use rmcp::model::ServerRequest;
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    use super::StdioChannel;
    use crate::context::Caller;
    use crate::context::{CallContext, ChannelError, ClientChannel, SessionLevel, StateMap};
    use crate::server::session::lifecycle::{Admit, Lifecycle};
    use crate::transport::stdio::Outbox;

    fn context(channel: Option<Arc<dyn ClientChannel>>) -> CallContext {
        CallContext::new(
            "t".into(),
            StateMap::default(),
            CancellationToken::new(),
            channel,
            None,
            SessionLevel::default(),
            Caller::anonymous(),
        )
    }

    fn elicitation() -> ServerRequest {
        serde_json::from_value(json!({"method": "elicitation/create", "params": {
            "mode": "form", "message": "Sure?",
            "requestedSchema": {"type": "object", "properties": {}}}}))
        .unwrap()
    }

    #[tokio::test]
    async fn a_call_asks_only_where_its_client_can_answer() {
        let no_channel = context(None).asker().ask(elicitation()).await.unwrap_err();
        assert!(
            matches!(no_channel, ChannelError::Unsupported(why) if why.contains("no client to ask")),
            "{no_channel:?}"
        );
        let (server_end, _client_end) = tokio::io::duplex(64 * 1024);
        let lifecycle = Arc::new(Lifecycle::default());
        let channel = Arc::new(StdioChannel::new(
            Outbox::new(server_end),
            lifecycle.clone(),
        ));
        let mut call = context(Some(channel.clone()));
        call.per_request = true;
        let refused = call.asker().ask(elicitation()).await.unwrap_err();
        assert!(
            matches!(refused, ChannelError::Unsupported(why) if why.contains("input_required")),
            "{refused:?}"
        );
        // A client that declared no elicitation is not asked.
        let initialize = serde_json::from_value(json!({"jsonrpc": "2.0", "id": 0,
            "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}))
        .unwrap();
        assert!(matches!(lifecycle.admit(&initialize), Admit::Pass));
        let call = context(Some(channel));
        assert!(
            call.asker()
                .channel
                .and_then(|c| c.capabilities())
                .is_some()
        );
        assert_eq!(
            call.asker().ask(elicitation()).await.unwrap_err(),
            ChannelError::NotDeclared("elicitation")
        );
    }
}
