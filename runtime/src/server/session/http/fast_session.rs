//! A session the HTTP fast path opened (`--sessions`): the session's own handler (its log
//! level, its number, what ends with it), what its client declared, and its calls in flight.
//! The transport keeps it by session id; when rmcp comes to serve the session, the handler
//! rmcp makes for it is this one's (`server/http.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::model::{CancelledNotificationParam, ClientCapabilities, RequestId};
use tokio_util::sync::CancellationToken;

use crate::server::front::Front;
use crate::transport::http::{Session, SessionCore};

/// One session the fast path opened.
pub(crate) struct FastSession {
    /// The session's handler.
    pub(crate) server: Arc<Front>,
    /// What its client declared.
    pub(crate) capabilities: Arc<ClientCapabilities>,
    /// Its client declared something the server can ask of it (elicitation, sampling,
    /// roots): its calls are rmcp's, whose session carries the question and the answer.
    pub(crate) asks: bool,
    /// Its calls on the fast path, by request id, until they end.
    calls: Mutex<HashMap<RequestId, CancellationToken>>,
    /// Cancelled when the session ends: every call's token is its child.
    ended: CancellationToken,
}

impl FastSession {
    pub(crate) fn new(server: Front, capabilities: ClientCapabilities) -> FastSession {
        let asks = capabilities.elicitation.is_some()
            || capabilities.sampling.is_some()
            || capabilities.roots.is_some();
        FastSession {
            server: Arc::new(server),
            capabilities: Arc::new(capabilities),
            asks,
            calls: Mutex::default(),
            ended: CancellationToken::new(),
        }
    }

    /// The opened `core` is (what the transport keeps of a session the fast path opened).
    pub(crate) fn of(core: &SessionCore) -> Option<Arc<FastSession>> {
        let core: Arc<dyn std::any::Any + Send + Sync> = core.clone();
        core.downcast().ok()
    }

    fn calls(&self) -> MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Call `id` runs until the guard returned is dropped; its token, stopped by the call's
    /// `notifications/cancelled` and by the session's end.
    pub(crate) fn running(self: &Arc<Self>, id: &RequestId) -> (CancellationToken, Running) {
        let token = self.ended.child_token();
        self.calls().insert(id.clone(), token.clone());
        let running = Running {
            opened: self.clone(),
            id: id.clone(),
        };
        (token, running)
    }

    /// `notifications/cancelled` (its params, as raw JSON): the call it names stops, if it
    /// still runs; `None` for params that do not read (rmcp's to answer).
    pub(crate) fn cancel(&self, params: &str) -> Option<()> {
        let cancelled = serde_json::from_str::<CancelledNotificationParam>(params).ok()?;
        if let Some(id) = &cancelled.request_id
            && let Some(token) = self.calls().get(id)
        {
            tracing::debug!(request = %id, "a call was cancelled by its client");
            token.cancel();
        }
        Some(())
    }
}

impl Session for FastSession {
    fn end(&self) {
        self.ended.cancel();
    }

    fn set_level(&self, level: &str) {
        #[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 has it.
        let wire = serde_json::from_value::<rmcp::model::LoggingLevel>(level.into());
        if let Ok(wire) = wire {
            self.server
                .level
                .set(crate::context::LogLevel::from_wire(wire));
        }
    }
}

/// A call of a session, running.
pub(crate) struct Running {
    opened: Arc<FastSession>,
    id: RequestId,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.opened.calls().remove(&self.id);
    }
}
