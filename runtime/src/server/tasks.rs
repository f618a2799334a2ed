//! Where a server keeps its tasks, and for how long (the pipeline's task step is
//! `call/task/`).

use std::sync::Arc;
use std::time::Duration;

use super::Server;
use crate::task::TaskStore;

impl Server {
    /// Where tasks are kept (default: this process's memory, [`MemoryStore`]). Replicas
    /// behind a load balancer share one (`RedisStore`, feature `redis`), so that any of
    /// them answers `tasks/get` and `tasks/cancel`.
    ///
    /// [`MemoryStore`]: crate::task::MemoryStore
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// let server = toolsmith::Server::new().task_store(Arc::new(toolsmith::task::MemoryStore::new()));
    /// # let _ = server;
    /// ```
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks.store = Some(store);
        self
    }

    /// How long an ended task (its result) is kept, then "not found" (default 1 hour). The
    /// task's `ttlMs` says it, counted from its creation.
    ///
    /// ```
    /// let server = toolsmith::Server::new().task_ttl(std::time::Duration::from_secs(600));
    /// # let _ = server;
    /// ```
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.tasks.ttl = Some(ttl);
        self
    }

    /// How long a running task's lease lasts (default 30 s): the process running it renews
    /// it while it runs; once it runs out unrenewed (the process died), the task is
    /// `failed` ("the server running it stopped").
    ///
    /// ```
    /// let server = toolsmith::Server::new().task_lease(std::time::Duration::from_secs(10));
    /// # let _ = server;
    /// ```
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.tasks.lease = Some(lease);
        self
    }

    /// How often clients are told to poll a task (its `pollIntervalMs`, default 1 s); a run
    /// renews its lease, and so sees a cancel sent to another replica, at least as often.
    ///
    /// ```
    /// let server = toolsmith::Server::new().task_poll_interval(std::time::Duration::from_millis(500));
    /// # let _ = server;
    /// ```
    pub fn task_poll_interval(mut self, every: Duration) -> Self {
        self.tasks.poll = Some(every);
        self
    }

    /// How many tasks this server process runs at once, of all callers (default
    /// [`DEFAULT_MAX_TASKS`]): past it, a call that would start one is answered with an error
    /// result that says so, and nothing runs. Each replica counts its own.
    ///
    /// [`DEFAULT_MAX_TASKS`]: Server::DEFAULT_MAX_TASKS
    ///
    /// ```
    /// let server = toolsmith::Server::new().max_tasks(200);
    /// # let _ = server;
    /// ```
    pub fn max_tasks(mut self, max: usize) -> Self {
        self.tasks.max = Some(max);
        self
    }

    /// How many tasks one caller (one [identity](crate::context::Caller::identity)) may have running
    /// on this server process at once (default [`DEFAULT_MAX_TASKS_PER_CALLER`]); past it,
    /// its calls that would start one are refused until one ends or is cancelled.
    ///
    /// [`DEFAULT_MAX_TASKS_PER_CALLER`]: Server::DEFAULT_MAX_TASKS_PER_CALLER
    ///
    /// ```
    /// let server = toolsmith::Server::new().max_tasks_per_caller(10);
    /// # let _ = server;
    /// ```
    pub fn max_tasks_per_caller(mut self, max: usize) -> Self {
        self.tasks.max_per_caller = Some(max);
        self
    }
}
