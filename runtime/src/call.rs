//! The plumbing behind context parameters: the per-call context the generated code reads
//! them from, registered state by type, and the ordered channel that carries a call's
//! notifications to the client before its result.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{
    LoggingMessageNotification, LoggingMessageNotificationParam, ProgressNotification,
    ProgressNotificationParam, ProgressToken, ServerNotification,
};
use rmcp::service::TxJsonRpcMessage;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::log::SessionLevel;
use crate::transport::Outbox;
use crate::{Cancellation, ClientLog, Progress, State};

/// A notification a tool produced, in order.
pub(crate) enum Notice {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

/// The ordered channel from a call's context types to the client.
#[derive(Clone)]
pub(crate) struct Notifier(mpsc::UnboundedSender<Notice>);

impl Notifier {
    pub(crate) fn send(&self, notice: Notice) {
        let _ = self.0.send(notice);
    }
}

/// Registered state values, by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap(Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(&mut self.0).insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub(crate) fn contains(&self, key: TypeId) -> bool {
        self.0.contains_key(&key)
    }
}

/// Everything a call's context parameters are made from.
#[doc(hidden)]
pub struct CallContext {
    pub(crate) tool: &'static str,
    pub(crate) states: StateMap,
    pub(crate) cancel: CancellationToken,
    pub(crate) outbox: Option<Outbox>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) level: SessionLevel,
    forwarder: Mutex<Option<(Notifier, tokio::task::JoinHandle<()>)>>,
}

impl CallContext {
    pub(crate) fn new(
        tool: &'static str,
        states: StateMap,
        cancel: CancellationToken,
        outbox: Option<Outbox>,
        progress_token: Option<ProgressToken>,
        level: SessionLevel,
    ) -> Self {
        CallContext {
            tool,
            states,
            cancel,
            outbox,
            progress_token,
            level,
            forwarder: Mutex::new(None),
        }
    }

    /// The notifier of this call, started on first use (only calls that report pay for it).
    fn notifier(&self) -> Option<Notifier> {
        let outbox = self.outbox.clone()?;
        let mut slot = self.forwarder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((notifier, _)) = &*slot {
            return Some(notifier.clone());
        }
        let (tx, mut rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            while let Some(notice) = rx.recv().await {
                let notification = match notice {
                    Notice::Progress(param) => {
                        ServerNotification::ProgressNotification(ProgressNotification::new(param))
                    }
                    Notice::Log(param) => ServerNotification::LoggingMessageNotification(
                        LoggingMessageNotification::new(param),
                    ),
                };
                let frame = TxJsonRpcMessage::<RoleServer>::notification(notification);
                if let Err(err) = outbox.send(&frame).await {
                    tracing::debug!(%err, "a notification could not be sent");
                }
            }
        });
        let notifier = Notifier(tx);
        *slot = Some((notifier.clone(), task));
        Some(notifier)
    }

    /// Waits until every notification of the call is sent, so that they precede the result.
    /// Tool code that kept a `Progress` or `ClientLog` past its return cannot hold this up:
    /// only what was sent before the call ended is awaited.
    pub(crate) async fn flush(&self) {
        let taken = self
            .forwarder
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some((notifier, task)) = taken {
            drop(notifier);
            // Clones a tool kept past its return keep the channel open: bound the wait.
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), task).await;
        }
    }
}

/// A parameter type filled from the call's context rather than from its arguments.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a toolsmith context parameter",
    note = "context parameters are `toolsmith::State<T>`, `toolsmith::Progress`, `toolsmith::Cancellation` and `toolsmith::ClientLog`"
)]
pub trait FromContext: Sized {
    fn from_context(context: &CallContext) -> Option<Self>;
}

impl<T: Send + Sync + 'static> FromContext for State<T> {
    fn from_context(context: &CallContext) -> Option<Self> {
        let value = context.states.0.get(&TypeId::of::<T>())?.clone();
        value.downcast::<T>().ok().map(State)
    }
}

impl FromContext for Progress {
    fn from_context(context: &CallContext) -> Option<Self> {
        let target = match &context.progress_token {
            Some(token) => context.notifier().map(|n| (token.clone(), n)),
            None => None,
        };
        Some(Progress { target })
    }
}

impl FromContext for Cancellation {
    fn from_context(context: &CallContext) -> Option<Self> {
        Some(Cancellation(context.cancel.clone()))
    }
}

impl FromContext for ClientLog {
    fn from_context(context: &CallContext) -> Option<Self> {
        let target = context
            .notifier()
            .map(|n| (n, context.level.clone(), context.tool));
        Some(ClientLog { target })
    }
}

/// The state type a `State<T>` parameter needs, for the startup check.
#[doc(hidden)]
pub struct StateKey {
    pub type_id: TypeId,
    pub type_name: &'static str,
}

/// The key of `State<T>` (used by `#[tool]`-generated code).
#[doc(hidden)]
pub fn state_key<T: 'static>() -> StateKey {
    StateKey {
        type_id: TypeId::of::<T>(),
        type_name: std::any::type_name::<T>(),
    }
}
