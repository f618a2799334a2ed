//! A client transport that records every JSON-RPC message it carries, as JSON: what the
//! client sent, and what it received as rmcp parsed it (a field rmcp keeps optional, such as
//! `resultType` or `ttlMs`, is there exactly when the server sent it).

use std::future::Future;
use std::sync::{Arc, Mutex};

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;

/// The messages, in order, shared with the transport that records them.
#[derive(Clone, Default)]
pub struct Wire {
    sent: Arc<Mutex<Vec<Value>>>,
    received: Arc<Mutex<Vec<Value>>>,
}

impl Wire {
    pub fn sent(&self) -> Vec<Value> {
        self.sent.lock().unwrap().clone()
    }

    pub fn received(&self) -> Vec<Value> {
        self.received.lock().unwrap().clone()
    }
}

/// `inner`, recording into a [`Wire`].
pub struct Recording<T> {
    inner: T,
    wire: Wire,
}

impl<T> Recording<T> {
    pub fn new(inner: T) -> (Self, Wire) {
        let wire = Wire::default();
        (
            Recording {
                inner,
                wire: wire.clone(),
            },
            wire,
        )
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Recording<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let json = serde_json::to_value(&item).unwrap_or(Value::Null);
        self.wire.sent.lock().unwrap().push(json);
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if let Some(message) = &message {
            let json = serde_json::to_value(message).unwrap_or(Value::Null);
            self.wire.received.lock().unwrap().push(json);
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
