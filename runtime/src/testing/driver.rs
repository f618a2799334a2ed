//! The client's connection: one task owns rmcp's line transport, sends what the client asks,
//! and routes what comes back: a response to the request waiting for it, a notification into
//! the buffer of the call under way (the server sends a call's notifications before its
//! result, and the client runs one call at a time), and a request of the server's to the
//! [`Answerer`], whose answer goes straight back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorData, JsonRpcMessage, RequestId,
    ServerNotification, ServerResult,
};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::DuplexStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::requests::Answerer;

/// What a request got back.
#[derive(Debug)]
pub(super) enum Reply {
    Result(Box<ServerResult>),
    Error(ErrorData),
    /// No answer within the call's timeout (the client cancelled it).
    TimedOut(Duration),
    /// The connection ended first.
    Closed,
}

/// How many `notifications/*/list_changed` a client heard, of each list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct ListChanges {
    pub(super) tools: usize,
    pub(super) resources: usize,
    pub(super) prompts: usize,
}

struct Shared {
    waiting: HashMap<RequestId, oneshot::Sender<Reply>>,
    notices: Vec<ServerNotification>,
    /// How many `notifications/tools/list_changed`, `resources/list_changed` and
    /// `prompts/list_changed` came (they belong to no call).
    list_changes: ListChanges,
    /// Answers the server's requests; the test may replace it (`Client::on_confirm`).
    answerer: Answerer,
}

pub(super) struct Driver {
    outgoing: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    shared: Arc<Mutex<Shared>>,
    task: JoinHandle<()>,
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

impl Driver {
    pub(super) fn start(stream: DuplexStream, answerer: Answerer) -> Driver {
        let (read, write) = tokio::io::split(stream);
        let mut transport = AsyncRwTransport::<RoleClient, _, _>::new_client(read, write);
        let (outgoing, mut queue) = mpsc::unbounded_channel::<ClientJsonRpcMessage>();
        let shared = Arc::new(Mutex::new(Shared {
            waiting: HashMap::new(),
            notices: Vec::new(),
            list_changes: ListChanges::default(),
            answerer,
        }));
        let routes = shared.clone();
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    message = queue.recv() => match message {
                        Some(message) => {
                            if transport.send(message).await.is_err() {
                                break;
                            }
                        }
                        None => break,
                    },
                    incoming = transport.receive() => match incoming {
                        Some(JsonRpcMessage::Request(request)) => {
                            let answerer = lock(&routes).answerer.clone();
                            let answer = match answerer(&request.request) {
                                Ok(result) => ClientJsonRpcMessage::response(result, request.id),
                                Err(error) => ClientJsonRpcMessage::error(error, Some(request.id)),
                            };
                            if transport.send(answer).await.is_err() {
                                break;
                            }
                        }
                        Some(message) => route(&routes, message),
                        None => break,
                    },
                }
            }
            // The connection ended: whoever still waits gets `Closed`.
            for (_, waiting) in lock(&routes).waiting.drain() {
                let _ = waiting.send(Reply::Closed);
            }
        });
        Driver {
            outgoing,
            shared,
            task,
        }
    }

    /// Sends `request` under `id`; the answer arrives through the returned future.
    pub(super) fn request(
        &self,
        id: RequestId,
        request: ClientRequest,
    ) -> impl Future<Output = Reply> + use<> {
        let (tx, rx) = oneshot::channel();
        lock(&self.shared).waiting.insert(id.clone(), tx);
        let sent = self
            .outgoing
            .send(ClientJsonRpcMessage::request(request, id))
            .is_ok();
        async move {
            if !sent {
                return Reply::Closed;
            }
            rx.await.unwrap_or(Reply::Closed)
        }
    }

    pub(super) fn notify(&self, notification: ClientNotification) {
        let _ = self
            .outgoing
            .send(ClientJsonRpcMessage::notification(notification));
    }

    /// What answers the server's requests from now on.
    pub(super) fn set_answerer(&self, answerer: Answerer) {
        lock(&self.shared).answerer = answerer;
    }

    /// What answers the server's requests now.
    pub(super) fn answerer(&self) -> Answerer {
        lock(&self.shared).answerer.clone()
    }

    /// Stops waiting for `id` (its call was given up).
    pub(super) fn forget(&self, id: &RequestId) {
        lock(&self.shared).waiting.remove(id);
    }

    /// How many list changes came so far.
    pub(super) fn list_changes(&self) -> ListChanges {
        lock(&self.shared).list_changes
    }

    /// The notifications received since the last call to this.
    pub(super) fn take_notices(&self) -> Vec<ServerNotification> {
        std::mem::take(&mut lock(&self.shared).notices)
    }

    pub(super) fn stop(&self) {
        self.task.abort();
    }
}

fn route(
    shared: &Mutex<Shared>,
    message: JsonRpcMessage<rmcp::model::ServerRequest, ServerResult, ServerNotification>,
) {
    let mut shared = lock(shared);
    match message {
        JsonRpcMessage::Response(response) => {
            if let Some(waiting) = shared.waiting.remove(&response.id) {
                let _ = waiting.send(Reply::Result(Box::new(response.result)));
            }
        }
        JsonRpcMessage::Error(error) => {
            if let Some(waiting) = error.id.and_then(|id| shared.waiting.remove(&id)) {
                let _ = waiting.send(Reply::Error(error.error));
            }
        }
        JsonRpcMessage::Notification(notification) => match notification.notification {
            ServerNotification::ToolListChangedNotification(_) => shared.list_changes.tools += 1,
            ServerNotification::ResourceListChangedNotification(_) => {
                shared.list_changes.resources += 1
            }
            ServerNotification::PromptListChangedNotification(_) => {
                shared.list_changes.prompts += 1
            }
            other => shared.notices.push(other),
        },
        // Answered by the driver's task.
        JsonRpcMessage::Request(_) => {}
    }
}
