//! What an upstream says while it answers a call, passed on to the client that made the call:
//! its progress (by the progress token the gateway sent with the call), its log messages (to
//! the one call in flight; with none or several, which call a message is about is unknown, so
//! it goes to the gateway's own log), and a call the client gave up on, cancelled at the
//! upstream too.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::RoleClient;
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientNotification, ClientRequest, LoggingMessageNotificationParam, Notification,
    ProgressNotificationParam, ProgressToken, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions};
use toolsmith::{ClientLog, LogLevel, Progress};

/// The calls in flight at one upstream, by the progress token each was sent with.
#[derive(Default)]
pub(crate) struct Relay {
    calls: Mutex<HashMap<ProgressToken, Caller>>,
}

/// Where what the upstream says about a call goes.
pub(crate) struct Caller {
    pub(crate) progress: Progress,
    pub(crate) log: ClientLog,
}

impl Relay {
    /// Sends `params` to `peer` as a `tools/call` and waits for its answer, relaying what
    /// the upstream says meanwhile to `caller`. Dropped before the answer (the client
    /// cancelled, the call timed out), the call is cancelled at the upstream.
    pub(crate) async fn call(
        self: &Arc<Self>,
        peer: &Peer<RoleClient>,
        params: CallToolRequestParams,
        caller: Caller,
    ) -> Result<CallToolResult, ServiceError> {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await?;
        let token = handle.progress_token.clone();
        self.calls.lock().unwrap().insert(token.clone(), caller);
        let mut pending = Pending {
            relay: self.clone(),
            token,
            unanswered: Some((peer.clone(), handle.id.clone())),
        };
        let answer = handle.await_response().await;
        pending.unanswered = None;
        match answer? {
            ServerResult::CallToolResult(result) => Ok(result),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    }

    /// The upstream's progress on a call, to the client that made it (with the client's
    /// own token, when it asked for progress).
    pub(crate) fn progress(&self, param: ProgressNotificationParam) {
        let calls = self.calls.lock().unwrap();
        if let Some(caller) = calls.get(&param.progress_token) {
            caller
                .progress
                .notify(param.progress, param.total, param.message);
        }
    }

    /// The upstream's log message: to the client of the one call in flight (at the client's
    /// level), else to the gateway's log.
    pub(crate) fn log(&self, upstream: &str, param: LoggingMessageNotificationParam) {
        let calls = self.calls.lock().unwrap();
        let mut callers = calls.values();
        if let (Some(caller), None) = (callers.next(), callers.next()) {
            caller.log.log(LogLevel::from(param.level), param.data);
            return;
        }
        tracing::info!(
            upstream,
            logger = param.logger.as_deref().unwrap_or(""),
            level = ?param.level,
            data = %param.data,
            "the upstream logged"
        );
    }
}

/// A call sent and not yet answered: forgotten when dropped, and cancelled at the upstream
/// when dropped unanswered.
struct Pending {
    relay: Arc<Relay>,
    token: ProgressToken,
    unanswered: Option<(Peer<RoleClient>, RequestId)>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.relay.calls.lock().unwrap().remove(&self.token);
        let Some((peer, id)) = self.unanswered.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let why = "the gateway's client no longer waits for it".to_owned();
        let cancelled = CancelledNotificationParam::new(Some(id), Some(why));
        let notification = ClientNotification::CancelledNotification(Notification::new(cancelled));
        runtime.spawn(async move {
            let _ = peer.send_notification(notification).await;
        });
    }
}
