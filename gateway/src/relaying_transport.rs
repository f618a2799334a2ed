//! What an upstream says about a call, relayed in the order it said it.
//!
//! rmcp hands each notification to its handler in a task of its own, so two progress
//! reports read one after the other may reach the handler in either order, and one sent
//! just before the call's answer may reach it after the answer. Read off the transport
//! instead, each progress report and log message is relayed as it is read: in order, and
//! before the answer that followed it.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::future::Future;
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, JsonRpcNotification, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use crate::relay::Relay;

/// A transport to an upstream that relays the upstream's progress and log messages to
/// `relay` as it reads them, and passes every message on unchanged.
pub(crate) struct RelayingTransport<T> {
    inner: T,
    upstream: Arc<str>,
    relay: Arc<Relay>,
}

impl<T> RelayingTransport<T> {
    pub(crate) fn new(inner: T, upstream: Arc<str>, relay: Arc<Relay>) -> Self {
        RelayingTransport {
            inner,
            upstream,
            relay,
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for RelayingTransport<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        if let JsonRpcMessage::Notification(JsonRpcNotification { notification, .. }) = &message {
            match notification {
                ServerNotification::ProgressNotification(said) => {
                    self.relay.progress(said.params.clone());
                }
                ServerNotification::LoggingMessageNotification(said) => {
                    self.relay.log(&self.upstream, said.params.clone());
                }
                _ => {}
            }
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
