//! The tools-only fast path: once a client has negotiated a protocol revision with an
//! `initialize` handshake (2024-11-05 to 2025-11-25), the transport answers `tools/list`
//! from a result serialized once and runs `tools/call` straight through the dispatcher,
//! instead of through rmcp's service loop. Everything else (initialize and version
//! negotiation, ping, logging/setLevel, 2026-07-28 sessions, paginated lists) stays with rmcp.
//!
//! Messages keep rmcp's model types both ways: requests are parsed as rmcp's
//! `RxJsonRpcMessage`, responses are rmcp's `TxJsonRpcMessage`s (the cached list is rmcp's
//! `ListToolsResult`, serialized once). Cancellation follows rmcp's rule: a cancelled call
//! gets no response. See BENCHMARKS.md for what this buys.

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientNotification, JsonRpcMessage, PaginatedRequestParams,
    ProgressToken, RequestId, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::handler::ToolServer;
use crate::transport::stdio::{Outbox, Shortcut};

/// The fast path of one session, put in front of rmcp as the transport's [`Shortcut`].
#[derive(Clone)]
pub(crate) struct FastPath(Arc<Fast>);

pub(crate) struct Fast {
    server: ToolServer,
    outbox: Outbox,
    /// Set once an `initialize` result for a revision with a handshake has gone out.
    enabled: AtomicBool,
    /// Calls in flight, by request id: removing an entry claims the right to respond.
    /// Several entries under one id only when a client reuses an id while its call runs
    /// (against JSON-RPC); each call still gets its answer.
    inflight: Mutex<HashMap<RequestId, Vec<(u64, CancellationToken)>>>,
    /// Numbers the calls in flight.
    calls: AtomicU64,
    running: AtomicUsize,
    idle: Notify,
}

impl Shortcut for FastPath {
    fn try_line(&self, line: &[u8]) -> bool {
        self.0.try_raw(line)
    }

    fn intercept(
        &self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.0.intercept(message)
    }

    fn observe(&self, frame: &TxJsonRpcMessage<RoleServer>) {
        self.0.observe(frame);
    }

    fn drain(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(self.0.drain())
    }
}

impl FastPath {
    pub(crate) fn new(server: ToolServer, outbox: Outbox) -> Self {
        FastPath(Arc::new(Fast {
            server,
            outbox,
            enabled: AtomicBool::new(false),
            inflight: Mutex::new(HashMap::new()),
            calls: AtomicU64::new(0),
            running: AtomicUsize::new(0),
            idle: Notify::new(),
        }))
    }
}

impl Fast {
    /// Watches outgoing frames for the `initialize` result that enables the fast path.
    pub(crate) fn observe(&self, frame: &TxJsonRpcMessage<RoleServer>) {
        if let JsonRpcMessage::Response(response) = frame
            && let ServerResult::InitializeResult(result) = &response.result
        {
            self.enabled
                .store(result.protocol_version.has_initialize(), Ordering::Release);
        }
    }

    /// Handles a `tools/call` or un-paginated `tools/list` line here (`true`), reading only
    /// what it needs: the envelope, then the params as rmcp's own params type. Anything else,
    /// or anything odd, is left to the normal path (`false`).
    pub(crate) fn try_raw(self: &Arc<Self>, line: &[u8]) -> bool {
        #[derive(Deserialize)]
        struct Envelope<'a> {
            #[serde(borrow)]
            jsonrpc: Cow<'a, str>,
            id: Option<RequestId>,
            #[serde(borrow)]
            method: Option<Cow<'a, str>>,
            #[serde(borrow)]
            params: Option<&'a RawValue>,
        }

        if !self.enabled.load(Ordering::Acquire) {
            return false;
        }
        let Ok(envelope) = serde_json::from_slice::<Envelope>(line) else {
            return false;
        };
        let (Some(id), Some(method)) = (envelope.id, envelope.method) else {
            return false;
        };
        if envelope.jsonrpc != "2.0" {
            return false;
        }
        let params = envelope.params.map_or("{}", RawValue::get);
        match &*method {
            "tools/call" => {
                let Ok(params) = serde_json::from_str::<CallToolRequestParams>(params) else {
                    return false;
                };
                let meta = params.meta.as_ref();
                // A request naming its own protocol version (2026-07-28) is rmcp's to check.
                if meta.is_some_and(|m| m.protocol_version().is_some()) {
                    return false;
                }
                let progress = meta.and_then(|m| m.get_progress_token());
                self.call(id, params, progress);
                true
            }
            "tools/list" => {
                let Ok(params) = serde_json::from_str::<PaginatedRequestParams>(params) else {
                    return false;
                };
                let modern = params
                    .meta
                    .as_ref()
                    .is_some_and(|m| m.protocol_version().is_some());
                if params.cursor.is_some() || modern || self.server.cached_list().is_none() {
                    return false;
                }
                self.list(id);
                true
            }
            _ => false,
        }
    }

    /// Cancels a fast-path call named by a `notifications/cancelled` (its response is then
    /// never sent), and hands every message on to rmcp.
    pub(crate) fn intercept(
        &self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>> {
        if let JsonRpcMessage::Notification(notification) = &message
            && let ClientNotification::CancelledNotification(cancelled) = &notification.notification
            && let Some(id) = &cancelled.params.request_id
            && let Some(calls) = self.inflight().remove(id)
        {
            for (_, token) in calls {
                token.cancel();
            }
        }
        Some(message)
    }

    /// Queues the cached list, not copied, as the response to `id` (the reader writes it,
    /// see `Outbox::write_now`).
    fn list(&self, id: RequestId) {
        let Some(list) = self.server.cached_list() else {
            return;
        };
        let id = serde_json::to_string(&id).unwrap_or_else(|_| "null".into());
        let prefix = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":");
        if let Err(err) = self
            .outbox
            .queue_shared(prefix.as_bytes(), list.clone(), b"}\n")
        {
            tracing::debug!(%err, "a tools/list response could not be written");
        }
    }

    /// Runs a call. Its first step runs right here: a tool that finishes without waiting
    /// (most do) is answered without a task or a thread hop, its response queued for the
    /// reader to write. A call that waits continues in a task of its own.
    fn call(
        self: &Arc<Self>,
        id: RequestId,
        params: CallToolRequestParams,
        progress: Option<ProgressToken>,
    ) {
        let token = CancellationToken::new();
        let fast = self.clone();
        let cancelled = token.clone();
        let mut work =
            Box::pin(async move { fast.server.call(params, cancelled, progress, None).await });
        // A waker that does nothing is enough for a first poll: a future that is not ready
        // registers the waker of its next poll, which the task below makes.
        let mut cx = Context::from_waker(Waker::noop());
        if let Poll::Ready(result) = work.as_mut().poll(&mut cx) {
            if let Err(err) = self.outbox.queue(&response(id, result)) {
                tracing::debug!(%err, "a tools/call response could not be written");
            }
            return;
        }
        let number = self.calls.fetch_add(1, Ordering::Relaxed);
        self.inflight()
            .entry(id.clone())
            .or_default()
            .push((number, token));
        let fast = self.clone();
        self.spawn(async move {
            let result = work.await;
            if !fast.claim(&id, number) {
                return; // cancelled: no response
            }
            if let Err(err) = fast.outbox.send(&response(id, result)).await {
                tracing::debug!(%err, "a tools/call response could not be written");
            }
        });
    }

    fn spawn(self: &Arc<Self>, work: impl Future<Output = ()> + Send + 'static) {
        self.running.fetch_add(1, Ordering::AcqRel);
        let fast = self.clone();
        tokio::spawn(async move {
            work.await;
            if fast.running.fetch_sub(1, Ordering::AcqRel) == 1 {
                fast.idle.notify_waiters();
            }
        });
    }

    /// At the end of input: lets calls in flight finish (like rmcp's own drain, at most five
    /// seconds), then cancels the rest.
    pub(crate) async fn drain(&self) {
        let wait = async {
            loop {
                let idle = self.idle.notified();
                if self.running.load(Ordering::Acquire) == 0 {
                    return;
                }
                idle.await;
            }
        };
        if tokio::time::timeout(Duration::from_secs(5), wait)
            .await
            .is_err()
        {
            tracing::warn!("timed out draining in-flight tool calls");
        }
        for (_, calls) in self.inflight().drain() {
            for (_, token) in calls {
                token.cancel();
            }
        }
    }

    fn inflight(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<RequestId, Vec<(u64, CancellationToken)>>> {
        self.inflight.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes call `number` out of the calls in flight: `false` when it was cancelled.
    fn claim(&self, id: &RequestId, number: u64) -> bool {
        let mut inflight = self.inflight();
        let Some(calls) = inflight.get_mut(id) else {
            return false;
        };
        let Some(at) = calls.iter().position(|(n, _)| *n == number) else {
            return false;
        };
        calls.swap_remove(at);
        if calls.is_empty() {
            inflight.remove(id);
        }
        true
    }
}

/// The response to a call, in the shape of revisions before 2026-07-28.
fn response(
    id: RequestId,
    result: Result<rmcp::model::CallToolResult, rmcp::ErrorData>,
) -> TxJsonRpcMessage<RoleServer> {
    match result {
        Ok(mut result) => {
            result.result_type = None;
            TxJsonRpcMessage::<RoleServer>::response(ServerResult::CallToolResult(result), id)
        }
        Err(error) => TxJsonRpcMessage::<RoleServer>::error(error, Some(id)),
    }
}
