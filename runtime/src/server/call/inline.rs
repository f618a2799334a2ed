//! A call's first step, run where the request was read: a call that finishes without waiting
//! (most do) is answered without a task or a thread hop. A call that waits continues in a
//! task of its own. A tool whose first step took longer than [`INLINE_BUDGET`] (blocking work
//! in an `async fn`) would hold up reading, cancellations included: it is remembered, and its
//! later calls start on a thread of the pool instead, on every way in.

use std::cell::Cell;
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::tool::ToolName;

/// How long an async tool's first step may take before its later calls run on a thread of
/// their own. Measured with the coarse clock (a few ms of resolution, a fraction of the cost
/// of a precise reading, twice per call).
pub(crate) const INLINE_BUDGET: Duration = Duration::from_millis(10);

/// The tools whose first step blocked past [`INLINE_BUDGET`], for one server.
#[derive(Default)]
pub(crate) struct Blocking {
    tools: Mutex<HashSet<String>>,
    any: AtomicBool,
}

/// How a first step ended.
pub(crate) enum Started<F: Future> {
    Done(F::Output),
    /// Not finished: the rest runs in a task (the future has been polled once).
    Waiting(Pin<Box<F>>),
    /// Not started: the tool is known to block, so the whole call runs on a pool thread.
    Blocks(Pin<Box<F>>),
}

thread_local! {
    /// The tool whose call the pipeline started on this thread, during a first step.
    static STARTED: Cell<Option<ToolName>> = const { Cell::new(None) };
}

/// The pipeline names the tool whose call it starts: a first step that runs past
/// [`INLINE_BUDGET`] is then put down to that tool (see [`Blocking::start`]).
pub(crate) fn started(tool: &ToolName) {
    STARTED.set(Some(tool.clone()));
}

impl Blocking {
    /// Runs `work`'s first step here, unless its tool `blocks` (see [`Blocking::blocks`]). A
    /// first step past [`INLINE_BUDGET`] marks the tool the pipeline started in it.
    #[inline]
    pub(crate) fn start<F: Future>(&self, blocks: bool, work: F) -> Started<F> {
        let mut work = Box::pin(work);
        if blocks {
            return Started::Blocks(work);
        }
        // A waker that does nothing is enough for a first poll: a future that is not ready
        // registers the waker of its next poll, which the task that takes it over makes.
        let mut cx = Context::from_waker(Waker::noop());
        STARTED.set(None);
        let start = coarse_now();
        let polled = work.as_mut().poll(&mut cx);
        let took = coarse_now().saturating_sub(start);
        if took > INLINE_BUDGET
            && let Some(tool) = STARTED.take()
        {
            self.mark(&tool, took);
        }
        match polled {
            Poll::Ready(output) => Started::Done(output),
            Poll::Pending => Started::Waiting(work),
        }
    }

    /// Whether `tool`'s calls are known to block their thread.
    pub(crate) fn blocks(&self, tool: &str) -> bool {
        self.any.load(Ordering::Acquire)
            && self
                .tools
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(tool)
    }

    fn mark(&self, tool: &str, took: Duration) {
        tracing::warn!(
            tool,
            blocked_ms = took.as_millis() as u64,
            "an async tool blocked the reader in its first step; its calls now run on a thread \
             of their own. Keep blocking work in a sync `fn` tool, or in spawn_blocking"
        );
        let mut tools = self.tools.lock().unwrap_or_else(|e| e.into_inner());
        tools.insert(tool.to_owned());
        self.any.store(true, Ordering::Release);
    }
}

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
