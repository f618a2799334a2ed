//! The session layer in front of rmcp, and its tools-only fast path.
//!
//! Every message passes here first. The layer keeps the session's lifecycle and its requests
//! in flight for both paths (`lifecycle.rs`). Once a client has negotiated a revision with an
//! `initialize` handshake (2024-11-05 to 2025-11-25), it answers `tools/list` from a result
//! serialized once and runs `tools/call` straight through the dispatcher, instead of through
//! rmcp's service loop. Everything else (initialize and version negotiation, ping,
//! logging/setLevel, 2026-07-28 sessions, paginated lists, anything unusual) stays with rmcp.
//!
//! Messages keep rmcp's model types both ways: requests are parsed as rmcp's params types,
//! responses are rmcp's `TxJsonRpcMessage`s (the cached list is rmcp's `ListToolsResult`,
//! serialized once). Cancellation follows rmcp's rule: a cancelled call gets no response.
//! See BENCHMARKS.md for what this buys.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientNotification, ErrorData, JsonRpcMessage, PaginatedRequestParams,
    ProgressToken, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::envelope::{ToolMethod, response, tool_request};
use super::handler::{CallSetup, ToolServer};
use super::lifecycle::{Admit, Lifecycle, Requests, id_in_use};
use crate::transport::stdio::{Outbox, Shortcut};

/// How long an async tool's first step may take on the reader before its later calls run on a
/// thread of their own instead. Measured with the coarse clock (a few ms of resolution, a
/// fraction of the cost of a precise reading, twice per call).
const INLINE_BUDGET: Duration = Duration::from_millis(10);

/// A monotonic reading that is cheap to take: `CLOCK_MONOTONIC_COARSE` on Linux.
fn coarse_now() -> Duration {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes the timespec it is given.
        if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) } == 0 {
            return Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32);
        }
    }
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

/// The session layer of one session, put in front of rmcp as the transport's [`Shortcut`].
#[derive(Clone)]
pub(crate) struct FastPath(Arc<Fast>);

pub(crate) struct Fast {
    server: ToolServer,
    outbox: Outbox,
    /// Whether the fast path answers tools requests (off: rmcp answers everything).
    answers: bool,
    lifecycle: Lifecycle,
    requests: Requests,
    /// Numbers the calls that continue in a task.
    calls: AtomicU64,
    running: AtomicUsize,
    idle: Notify,
    /// Tools whose first step blocked the reader past [`INLINE_BUDGET`].
    blocking: Mutex<HashSet<String>>,
    any_blocking: AtomicBool,
}

impl Shortcut for FastPath {
    fn try_line(&self, line: &[u8]) -> bool {
        self.0.answers && self.0.lifecycle.handshake() && self.0.try_raw(line)
    }

    fn intercept(
        &self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.0.intercept(message)
    }

    fn observe(&self, frame: &TxJsonRpcMessage<RoleServer>) {
        self.0.lifecycle.observe(frame);
        match frame {
            JsonRpcMessage::Response(response) => self.0.requests.answered(&response.id),
            JsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    self.0.requests.answered(id);
                }
            }
            _ => {}
        }
    }

    fn drain(&self, deadline: Instant) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(self.0.drain(deadline))
    }
}

impl FastPath {
    /// The layer of a session served by `server`, answering tools requests itself when
    /// `answers`.
    pub(crate) fn new(server: ToolServer, outbox: Outbox, answers: bool) -> Self {
        FastPath(Arc::new(Fast {
            server,
            outbox,
            answers,
            lifecycle: Lifecycle::default(),
            requests: Requests::default(),
            calls: AtomicU64::new(0),
            running: AtomicUsize::new(0),
            idle: Notify::new(),
            blocking: Mutex::new(HashSet::new()),
            any_blocking: AtomicBool::new(false),
        }))
    }
}

impl Fast {
    /// Handles a `tools/call` or un-paginated `tools/list` line here (`true`), reading only
    /// what it needs: the envelope, then the params as rmcp's own params type. Anything else,
    /// or anything odd (an unknown member, params that are not an object), is left to the
    /// normal path (`false`), which validates it in full.
    fn try_raw(self: &Arc<Self>, line: &[u8]) -> bool {
        let Some((id, method, params)) = tool_request(line) else {
            return false;
        };
        if !self.requests.is_free(&id) {
            self.refuse(id_in_use(&id), id);
            return true;
        }
        match method {
            ToolMethod::Call => {
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
            ToolMethod::List => {
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
        }
    }

    /// Applies the session's lifecycle, refuses an id already in flight, and cancels a
    /// fast-path call named by a `notifications/cancelled` (its response is then never
    /// sent). Hands the rest on to rmcp.
    fn intercept(
        &self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>> {
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
        match &message {
            JsonRpcMessage::Request(request) if !self.requests.claim_rmcp(&request.id) => {
                self.refuse(id_in_use(&request.id), request.id.clone());
                return None;
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.requests.cancel(id);
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
    /// reader to write. A call that waits continues in a task of its own. A tool whose first
    /// step took longer than [`INLINE_BUDGET`] (blocking work in an `async fn`) would hold up
    /// reading, cancellations included: its later calls run on a thread of the sync pool.
    fn call(
        self: &Arc<Self>,
        id: RequestId,
        params: CallToolRequestParams,
        progress: Option<ProgressToken>,
    ) {
        let tool = match self.server.lookup(&params.name) {
            Ok(tool) => tool,
            Err(answer) => {
                if let Err(err) = self.outbox.queue(&response(id, *answer)) {
                    tracing::debug!(%err, "a tools/call response could not be written");
                }
                return;
            }
        };
        let token = CancellationToken::new();
        let inline = !self.blocks(tool.name());
        let fast = self.clone();
        let cancelled = token.clone();
        let mut work = Box::pin(async move {
            let arguments = params.arguments;
            Ok(fast
                .server
                .run(
                    tool,
                    arguments,
                    cancelled,
                    CallSetup {
                        progress,
                        ..CallSetup::default()
                    },
                )
                .await)
        });
        if inline {
            // A waker that does nothing is enough for a first poll: a future that is not
            // ready registers the waker of its next poll, which the task below makes.
            let mut cx = Context::from_waker(Waker::noop());
            let start = coarse_now();
            let polled = work.as_mut().poll(&mut cx);
            let took = coarse_now().saturating_sub(start);
            if took > INLINE_BUDGET {
                self.mark_blocking(tool.name(), took);
            }
            if let Poll::Ready(result) = polled {
                if let Err(err) = self.outbox.queue(&response(id, result)) {
                    tracing::debug!(%err, "a tools/call response could not be written");
                }
                return;
            }
        }
        let number = self.calls.fetch_add(1, Ordering::Relaxed);
        // The id was free when the line was read, and only the reader claims ids.
        self.requests.claim_fast(&id, number, token);
        let fast = self.clone();
        self.spawn(async move {
            let result = if inline {
                work.await
            } else {
                // It blocks its thread: on a pool thread, not on a runtime worker (where
                // it could also hold up the reader).
                match fast.server.sync().block_on(work).await {
                    Ok(result) => result,
                    Err(err) => Err(ErrorData::internal_error(err.to_string(), None)),
                }
            };
            if !fast.requests.finish_fast(&id, number) {
                return; // cancelled: no response
            }
            if let Err(err) = fast.outbox.send(&response(id, result)).await {
                tracing::debug!(%err, "a tools/call response could not be written");
            }
        });
    }

    fn blocks(&self, tool: &str) -> bool {
        self.any_blocking.load(Ordering::Acquire)
            && self
                .blocking
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(tool)
    }

    fn mark_blocking(&self, tool: &str, took: Duration) {
        tracing::warn!(
            tool,
            blocked_ms = took.as_millis() as u64,
            "an async tool blocked the reader in its first step; its calls now run on a thread \
             of their own. Keep blocking work in a sync `fn` tool, or in spawn_blocking"
        );
        let mut blocking = self.blocking.lock().unwrap_or_else(|e| e.into_inner());
        blocking.insert(tool.to_owned());
        self.any_blocking.store(true, Ordering::Release);
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

    /// At the end of input: lets calls in flight finish until `deadline`, then cancels the
    /// rest and says how many.
    async fn drain(&self, deadline: Instant) {
        let wait = async {
            loop {
                let idle = self.idle.notified();
                if self.running.load(Ordering::Acquire) == 0 {
                    return;
                }
                idle.await;
            }
        };
        if tokio::time::timeout_at(deadline.into(), wait)
            .await
            .is_err()
        {
            let running = self.running.load(Ordering::Acquire);
            tracing::warn!(
                running,
                "tool calls still running at shutdown were cancelled"
            );
        }
        self.requests.cancel_all();
    }
}
