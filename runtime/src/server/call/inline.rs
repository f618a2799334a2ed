//! A call's first step, run where the request was read: a call that finishes without waiting
//! (most do) is answered without a task or a thread hop. A call that waits continues in a
//! task of its own. A sync `fn` whose runs proved quick runs within it too (`tool/place.rs`;
//! the engine asks [`holder`]). A tool whose first step took longer than
//! [`INLINE_BUDGET`] (blocking work in an `async fn`, a sync `fn` that turned slow) would hold
//! up reading, cancellations included: it is remembered, and its later calls start on a
//! thread of the pool instead, on every way in.
//!
//! The first step is timed with a wall clock, which also counts the time the thread waited
//! for a CPU: on a busy machine, or in a container at its CPU limit, a quick step can look
//! slow. So a tool marked once is under review: its next calls' first steps, on the pool, are
//! timed by what the thread itself spent (running or asleep, from the kernel's scheduler
//! statistics, not the time it waited for a CPU). One that keeps its thread past the budget
//! is confirmed (and the warning is logged); [`REVIEWS`] that do not clear it, and its calls
//! start where they are read again.

use std::cell::Cell;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use std::time::{Duration, Instant};

use crate::tool::ToolName;

/// How long a tool's first step may take before its later calls run on a thread of their
/// own. Measured with the coarse clock (a few ms of resolution, a fraction of the cost
/// of a precise reading, twice per call).
pub(crate) const INLINE_BUDGET: Duration = Duration::from_millis(10);

/// How many first steps within the budget clear a tool under review.
pub(crate) const REVIEWS: u8 = 3;

/// The tools whose first step blocked past [`INLINE_BUDGET`], for one server.
#[derive(Default)]
pub(crate) struct Blocking {
    tools: Mutex<HashMap<String, Mark>>,
    any: AtomicBool,
}

/// What is known of a tool whose first step once ran past the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// Timed by the wall clock only: this many more quick first steps clear it.
    Review(u8),
    /// Its thread was held past the budget, by its own doing.
    Blocks,
}

/// Where a tool's calls start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Where the request was read.
    Inline,
    /// On a pool thread, its first step timed for the review.
    Review,
    /// On a pool thread.
    Blocks,
}

/// A first step's start, from [`Blocking::begin`] to [`Blocking::end`].
#[must_use = "a first step is ended with `Blocking::end`"]
pub(crate) struct Step {
    start: Duration,
    /// Who might keep the thread before (a pool thread's driver), put back when the step
    /// ends, or when a panic drops it.
    _restore: Restore,
}

thread_local! {
    /// The tool whose call the pipeline started on this thread, during a first step.
    static STARTED: Cell<Option<ToolName>> = const { Cell::new(None) };
    /// Who may keep this thread now (see [`Holder`]).
    static HOLDER: Cell<Holder> = const { Cell::new(Holder::Nobody) };
}

/// Who may keep the thread a call is polled on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holder {
    /// A runtime worker polling a call that waited: nothing may block it.
    Nobody,
    /// A call's first step where it was read, which the clock watches: a sync invocation
    /// proven quick may run here.
    FirstStep,
    /// A thread of the pool that drives a call: anything may.
    Pool,
}

/// Who may keep this thread now (`engine.rs` asks before it runs a sync invocation in place).
#[inline]
pub(crate) fn holder() -> Holder {
    HOLDER.get()
}

/// Runs `work` with this thread marked as a pool thread that drives a call.
pub(crate) fn holding<T>(work: impl FnOnce() -> T) -> T {
    let _restore = Restore(HOLDER.replace(Holder::Pool));
    work()
}

/// Puts back who may hold the thread when dropped: after a first step or a pool thread's
/// drive, a panic included (a runtime worker must never stay marked as one a call may hold).
struct Restore(Holder);

impl Drop for Restore {
    fn drop(&mut self) {
        HOLDER.set(self.0);
    }
}

/// The pipeline names the tool whose call it starts: a first step that runs past
/// [`INLINE_BUDGET`] is then put down to that tool (see [`Blocking::start`]).
pub(crate) fn started(tool: &ToolName) {
    STARTED.set(Some(tool.clone()));
}

impl Blocking {
    /// A first step begins here (the front polls the call once, `front/answer.rs`): the
    /// pipeline names the tool it starts in it ([`started`]).
    #[inline]
    pub(crate) fn begin(&self) -> Step {
        STARTED.set(None);
        let holder = HOLDER.get();
        if holder == Holder::Nobody {
            HOLDER.set(Holder::FirstStep);
        }
        Step {
            start: coarse_now(),
            _restore: Restore(holder),
        }
    }

    /// The first step `step` ended: one past [`INLINE_BUDGET`] marks the tool the pipeline
    /// started in it.
    #[inline]
    pub(crate) fn end(&self, step: Step) {
        let took = coarse_now().saturating_sub(step.start);
        drop(step);
        if took > INLINE_BUDGET
            && let Some(tool) = STARTED.take()
        {
            self.mark(&tool, took);
        }
    }

    /// Where `tool`'s calls start.
    #[inline]
    pub(crate) fn verdict(&self, tool: &str) -> Verdict {
        if !self.any.load(Ordering::Acquire) {
            return Verdict::Inline;
        }
        match self.lock().get(tool) {
            None => Verdict::Inline,
            Some(Mark::Review(_)) => Verdict::Review,
            Some(Mark::Blocks) => Verdict::Blocks,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Mark>> {
        self.tools.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A first step of `tool` took `took` by the wall clock: its calls go to the pool, under
    /// review.
    fn mark(&self, tool: &str, took: Duration) {
        tracing::debug!(
            tool,
            took_ms = took.as_millis() as u64,
            "a tool's first step ran past the budget; its next calls start on a pool thread, under review"
        );
        self.lock()
            .entry(tool.to_owned())
            .or_insert(Mark::Review(REVIEWS));
        self.any.store(true, Ordering::Release);
    }

    /// Runs `work` (a call of `tool`, under review), timing its first step by what its
    /// thread spent.
    pub(crate) async fn review<F: Future>(&self, tool: &str, work: F) -> F::Output {
        let mut work = std::pin::pin!(work);
        let mut first = true;
        std::future::poll_fn(|cx| {
            if !std::mem::take(&mut first) {
                return work.as_mut().poll(cx);
            }
            let held = Held::start();
            let polled = work.as_mut().poll(cx);
            self.reviewed(tool, held.and_then(Held::end));
            polled
        })
        .await
    }

    /// A reviewed first step of `tool` kept its thread `held` (`None`: not measurable here,
    /// taken as past the budget).
    pub(crate) fn reviewed(&self, tool: &str, held: Option<Duration>) {
        let mut tools = self.lock();
        let Some(mark) = tools.get_mut(tool) else {
            return;
        };
        match (*mark, held) {
            (Mark::Review(left), Some(held)) if held <= INLINE_BUDGET => {
                if left > 1 {
                    *mark = Mark::Review(left - 1);
                    return;
                }
                tools.remove(tool);
                tracing::debug!(
                    tool,
                    "a tool's first steps keep within the budget: the machine was busy, not the tool; its calls start where they are read again"
                );
            }
            (Mark::Review(_), held) => {
                *mark = Mark::Blocks;
                tracing::warn!(
                    tool,
                    blocked_ms = held.map(|h| h.as_millis() as u64),
                    "a tool blocked the thread that read its call; its calls now run on a thread \
                     of their own. Declare it #[tool(blocking)] to start there from the first call, \
                     or keep blocking work out of an `async fn` (spawn_blocking)"
                );
            }
            (Mark::Blocks, _) => {}
        }
        self.any.store(!tools.is_empty(), Ordering::Release);
    }
}

/// How long a thread keeps itself busy (running, or asleep in a blocking call) as opposed to
/// waiting for a CPU: wall time less the scheduler's run-queue wait
/// (`/proc/thread-self/schedstat`; Linux only).
struct Held {
    began: Instant,
    waited: Duration,
}

impl Held {
    fn start() -> Option<Held> {
        Some(Held {
            waited: run_queue_wait()?,
            began: Instant::now(),
        })
    }

    fn end(self) -> Option<Duration> {
        let took = self.began.elapsed();
        let waited = run_queue_wait()?.saturating_sub(self.waited);
        Some(took.saturating_sub(waited))
    }
}

/// How long this thread has waited for a CPU so far (the second field of its schedstat).
fn run_queue_wait() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let waited = stat.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(waited))
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{Blocking, Holder, INLINE_BUDGET, REVIEWS, Verdict, holder, holding};

    #[test]
    fn a_panic_in_a_first_step_or_a_pool_drive_leaves_the_thread_unmarked() {
        let blocking = Blocking::default();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _step = blocking.begin();
            assert_eq!(holder(), Holder::FirstStep);
            panic!("a layer panicked in the first step");
        }));
        assert!(panicked.is_err());
        assert_eq!(holder(), Holder::Nobody);
        let panicked = std::panic::catch_unwind(|| {
            holding(|| {
                assert_eq!(holder(), Holder::Pool);
                // A first step on a pool thread keeps it the pool's.
                let step = Blocking::default().begin();
                assert_eq!(holder(), Holder::Pool);
                drop(step);
                panic!("a tool panicked on its pool thread");
            })
        });
        assert!(panicked.is_err());
        assert_eq!(holder(), Holder::Nobody);
    }

    #[test]
    fn a_slow_first_step_is_reviewed_then_confirmed_or_cleared() {
        let blocking = Blocking::default();
        assert_eq!(blocking.verdict("t"), Verdict::Inline);
        blocking.mark("t", INLINE_BUDGET * 2);
        assert_eq!(blocking.verdict("t"), Verdict::Review);
        assert_eq!(blocking.verdict("other"), Verdict::Inline);
        // Quick first steps clear it.
        for _ in 1..REVIEWS {
            blocking.reviewed("t", Some(Duration::from_millis(1)));
            assert_eq!(blocking.verdict("t"), Verdict::Review);
        }
        blocking.reviewed("t", Some(Duration::from_millis(1)));
        assert_eq!(blocking.verdict("t"), Verdict::Inline);
        // One that holds its thread past the budget is confirmed, for good.
        blocking.mark("t", INLINE_BUDGET * 2);
        blocking.reviewed("t", Some(INLINE_BUDGET * 3));
        assert_eq!(blocking.verdict("t"), Verdict::Blocks);
        blocking.reviewed("t", Some(Duration::ZERO));
        assert_eq!(blocking.verdict("t"), Verdict::Blocks);
    }

    #[test]
    fn a_step_asleep_counts_and_time_waiting_for_a_cpu_does_not() {
        let blocking = Blocking::default();
        blocking.mark("sleeps", INLINE_BUDGET * 2);
        let sleeps = blocking.review("sleeps", async {
            std::thread::sleep(INLINE_BUDGET * 2);
        });
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(sleeps);
        if std::path::Path::new("/proc/thread-self/schedstat").exists() {
            assert_eq!(
                blocking.verdict("sleeps"),
                Verdict::Blocks,
                "asleep is held"
            );
            let before = super::run_queue_wait().unwrap();
            assert!(super::run_queue_wait().unwrap() >= before);
        }
    }
}
