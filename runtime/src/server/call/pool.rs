//! Where blocking work runs: the calls of sync tools, and async tools known to block their
//! thread, on threads of toolsmith's own (never the serving runtime's blocking pool), at most
//! a set number at once.
//!
//! - The serving runtime's blocking threads also read and write stdio when it is a file or a
//!   terminal: a crowd of sync tools there would starve the session, cancellations included.
//! - A sync tool that ignores its cancellation keeps its thread; the serving runtime does not
//!   wait for it when `main` returns, so the process still ends.
//! - Calls beyond the limit wait for a free slot without holding a thread, and a timed-out
//!   call keeps its slot until its thread is done: the number of threads stays bounded.

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::runtime::{Builder, Handle, Runtime};
use tokio::sync::Semaphore;
use tokio::task::JoinError;

use crate::tool::output::Outcome;

/// Threads the pool may start at most; the per-server limit keeps below it.
const POOL_THREADS: usize = 512;

/// A runtime used only for its blocking pool; never dropped, so never waited for.
fn pool() -> &'static Runtime {
    static POOL: OnceLock<Runtime> = OnceLock::new();
    POOL.get_or_init(|| {
        Builder::new_current_thread()
            .max_blocking_threads(POOL_THREADS)
            .thread_keep_alive(Duration::from_secs(10))
            .thread_name("toolsmith-sync")
            .build()
            .expect("a runtime for sync tools can be built")
    })
}

/// The thread pool of one server's blocking work: as many sync tool calls at once as its
/// limit, and as many calls of async tools known to block (apart: such a call may be a sync
/// tool's, which then needs a slot of its own, and one limit for both could fill up with
/// calls waiting for a second slot).
#[derive(Clone)]
pub(crate) struct CallPool {
    sync: Arc<Semaphore>,
    blocking: Arc<Semaphore>,
}

impl CallPool {
    pub(crate) fn new(calls: usize) -> Self {
        let calls = calls.clamp(1, POOL_THREADS / 2);
        CallPool {
            sync: Arc::new(Semaphore::new(calls)),
            blocking: Arc::new(Semaphore::new(calls)),
        }
    }

    /// Runs `body` on a pool thread once a slot is free and then `ready` is (a call waiting
    /// for a slot has not started: it starts only when its session lets it).
    pub(crate) async fn run(
        &self,
        body: Box<dyn FnOnce() -> Outcome + Send>,
        ready: impl Future<Output = ()>,
    ) -> Outcome {
        match spawn(&self.sync, ready, body).await {
            Ok(outcome) => outcome,
            Err(err) if err.is_panic() => {
                Outcome::Failed(super::outcome::panic_message(&*err.into_panic()))
            }
            Err(err) => Outcome::Failed(err.to_string()),
        }
    }

    /// Drives `work` to its end on a pool thread once a slot is free, with the serving
    /// runtime's timers and I/O: for an async tool known to block its thread, which must not
    /// hold one of the runtime's workers.
    pub(crate) async fn block_on<F>(&self, work: F) -> Result<F::Output, JoinError>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let runtime = Handle::current();
        let ready = std::future::ready(());
        let drive = move || super::inline::holding(|| runtime.block_on(work));
        spawn(&self.blocking, ready, drive).await
    }
}

/// Runs `body` on a pool thread once `slots` has a free one and then `ready` is.
async fn spawn<T: Send + 'static>(
    slots: &Arc<Semaphore>,
    ready: impl Future<Output = ()>,
    body: impl FnOnce() -> T + Send + 'static,
) -> Result<T, JoinError> {
    // The semaphore is never closed.
    let slot = slots.clone().acquire_owned().await.ok();
    ready.await;
    pool()
        .spawn_blocking(move || {
            let _slot = slot;
            body()
        })
        .await
}
