//! Step 3's last hook: running as a task (the tasks extension of 2026-07-28, SEP-2663).
//!
//! A call of a tool that declares `task`, from a client that declared the extension (in
//! the request's `_meta`, or its session's `initialize`), is answered with the task's
//! handle as soon as the task is in the [`TaskStore`]; the tool then runs on this process,
//! on the engine like any call, with its own cancellation and its `timeout`. Its progress
//! goes to the store, its end too (a compare-and-set: a cancel is never undone), and while
//! it runs its lease is renewed, so that a task whose process died is failed once the lease
//! runs out. `tasks/get` and `tasks/cancel` read and change the store, on any replica:
//! cancelling a task another replica runs reaches it at its next renewal.
//!
//! The confirmation comes first, on the call itself; the task cannot ask its client
//! anything (it has no request to ask on). A client without the extension gets an ordinary
//! call, or, for `task = "required"`, an error that names the extension.
//!
//! `start.rs` makes a task and starts its run; `poll.rs` answers `tasks/get`,
//! `tasks/cancel` and `tasks/update`, and says a task as the protocol does.

mod keeper;
mod poll;
mod start;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::ErrorCode;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::outcome::tool_result;
use crate::task::{
    DEFAULT_MAX_TASKS, DEFAULT_MAX_TASKS_PER_CALLER, MemoryStore, TaskEnd, TaskStatus, TaskStore,
    error_object, now_ms,
};
use crate::tool::ToolInfo;
use crate::tool::ToolRef;
use crate::tool::output::Outcome;
use keeper::{Admitted, Runs};
use start::TaskChannel;
pub(in crate::server::call) use start::runs_as_task;

/// How long an ended task is kept unless the server says otherwise: 1 hour.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(3600);
/// How long a running task's lease lasts unless the server says otherwise: 30 s.
pub(crate) const DEFAULT_LEASE: Duration = Duration::from_secs(30);
/// How often clients are told to poll, and how often a run renews its lease and looks for
/// a cancel at most: 1 s.
pub(crate) const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// The `_meta` key of a task's last progress in `tasks/get`.
pub(crate) const PROGRESS_META: &str = "dev.toolsmith/progress";

/// Where a server keeps its tasks, and for how long (see `Server::task_store`).
#[derive(Clone, Default)]
pub(crate) struct TaskConfig {
    pub(crate) store: Option<Arc<dyn TaskStore>>,
    pub(crate) ttl: Option<Duration>,
    pub(crate) lease: Option<Duration>,
    pub(crate) poll: Option<Duration>,
    pub(crate) max: Option<usize>,
    pub(crate) max_per_caller: Option<usize>,
}

/// The tasks of one server: its store, and the runs of this process.
pub(crate) struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Duration,
    pub(crate) lease: Duration,
    pub(crate) poll: Duration,
    /// The tasks running here, by id: `tasks/cancel` on this process stops one at once.
    running: Mutex<Runs>,
    /// The most tasks running here at once, of all callers and of one.
    max: usize,
    max_per_caller: usize,
    runs: TaskTracker,
    /// Fired when serving ends: the runs stop, their tasks failed as stopped.
    stopping: CancellationToken,
    /// The tools' `max_concurrency` slots, which a task's run waits for (the server's own
    /// limit, which lets the calls that make tasks through).
    pub(crate) limit: Option<crate::layer::ConcurrencyLimit>,
}

impl Default for Tasks {
    fn default() -> Self {
        Tasks::new(&TaskConfig::default())
    }
}

impl Tasks {
    pub(crate) fn new(config: &TaskConfig) -> Tasks {
        Tasks {
            store: config
                .store
                .clone()
                .unwrap_or_else(|| Arc::new(MemoryStore::new())),
            ttl: bounded(config.ttl.unwrap_or(DEFAULT_TTL)),
            lease: bounded(config.lease.unwrap_or(DEFAULT_LEASE)),
            poll: bounded(config.poll.unwrap_or(DEFAULT_POLL)),
            running: Mutex::default(),
            max: config.max.unwrap_or(DEFAULT_MAX_TASKS),
            max_per_caller: config
                .max_per_caller
                .unwrap_or(DEFAULT_MAX_TASKS_PER_CALLER),
            runs: TaskTracker::new(),
            stopping: CancellationToken::new(),
            limit: None,
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, Runs> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How often a run renews its lease (and so sees a cancel made elsewhere).
    fn renew_every(&self) -> Duration {
        (self.lease / 3)
            .min(self.poll)
            .max(Duration::from_millis(20))
    }

    /// When serving ends: every run here stops, its task failed as stopped (waiting a
    /// little for the store to hear it).
    pub(crate) async fn stop(&self) {
        self.stopping.cancel();
        self.runs.close();
        if tokio::time::timeout(Duration::from_secs(5), self.runs.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                running = self.runs.len(),
                "tasks still running at shutdown could not record that they stopped"
            );
        }
    }

    /// The run of task `id`: the tool on the engine, then its end in the store. Its lease
    /// and progress are the keeper's (`keeper.rs`), which also stops it when its task was
    /// cancelled elsewhere.
    async fn run(
        self: Arc<Self>,
        id: String,
        tool: ToolRef,
        run: impl Future<Output = Option<Outcome>> + Send + 'static,
        progress: Arc<TaskChannel>,
        admitted: Admitted,
    ) {
        use futures::FutureExt;
        let outcome = std::panic::AssertUnwindSafe(run)
            .catch_unwind()
            .await
            .unwrap_or_else(|_| Some(Outcome::Failed("the task's run panicked".to_owned())));
        // The last progress reported, which the keeper did not write yet.
        self.write_progress(&id, &progress).await;
        let end = self.end_of(&tool, outcome);
        tracing::debug!(task = %id, tool = tool.name(), status = ?end.status, "task ended");
        // A store that failed once may answer the next time: the end is tried again (its
        // lease renewed meanwhile), rather than lost to a lease running out.
        for wait in [250, 1000, 2000, 0] {
            match self.store.finish(&id, &end).await {
                Ok(_) => break,
                Err(err) if wait == 0 => {
                    tracing::warn!(task = %id, %err, "a task's end was not recorded");
                }
                Err(err) => {
                    tracing::debug!(task = %id, %err, "a task's end was not recorded yet");
                    tokio::time::sleep(Duration::from_millis(wait)).await;
                    let _ = self.store.renew(&id, self.lease).await;
                }
            }
        }
        drop(admitted);
    }

    /// Writes the progress the tool reported since the last write, if any.
    async fn write_progress(&self, id: &str, progress: &TaskChannel) {
        if let Some(latest) = progress.take()
            && let Err(err) = self.store.progress(id, &latest, now_ms()).await
        {
            tracing::warn!(task = %id, %err, "a task's progress was not recorded");
        }
    }

    /// How a run's outcome ends its task: its result (an error result too) completes it,
    /// its timeout fails it, a stop of the server fails it as stopped.
    fn end_of(&self, tool: &ToolInfo, outcome: Option<Outcome>) -> TaskEnd {
        let at_ms = now_ms();
        match outcome {
            None if self.stopping.is_cancelled() => crate::task::stopped(at_ms),
            None => TaskEnd {
                status: TaskStatus::Cancelled,
                message: Some("cancelled by the client".to_owned()),
                result: None,
                at_ms,
            },
            Some(Outcome::TimedOut(message)) => TaskEnd {
                status: TaskStatus::Failed,
                result: Some(error_object(ErrorCode::INTERNAL_ERROR.0, &message)),
                message: Some(message),
                at_ms,
            },
            Some(outcome) => {
                let result = tool_result(tool, outcome);
                let message = (result.is_error == Some(true))
                    .then(|| format!("tool '{}' answered with an error", tool.name()));
                let result = match serde_json::to_value(&result) {
                    Ok(serde_json::Value::Object(object)) => object,
                    _ => error_object(ErrorCode::INTERNAL_ERROR.0, "the result was not JSON"),
                };
                TaskEnd {
                    status: TaskStatus::Completed,
                    message,
                    result: Some(result),
                    at_ms,
                }
            }
        }
    }
}

/// A duration as a server keeps it: at most about 100 years, so that no sum of them
/// overflows (an absurd `--task-ttl` is as good as forever).
fn bounded(duration: Duration) -> Duration {
    duration.min(Duration::from_secs(100 * 365 * 24 * 3600))
}
