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
    /// use std::time::Duration;
    /// use toolsmith::task::{MemoryStore, TaskStatus};
    /// use toolsmith::{Registry, Server, testing::Client};
    ///
    /// /// Counts the words of every note, as a task.
    /// #[toolsmith::tool(task, read_only, closed_world)]
    /// async fn count_shared_words() -> u32 {
    ///     1200
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// // Two replicas, one store: either answers for the other's tasks.
    /// let store = Arc::new(MemoryStore::new());
    /// let tools = Registry::from_module(module_path!()).unwrap();
    /// let one = Server::with_registry(tools.clone()).task_store(store.clone());
    /// let other = Server::with_registry(tools).task_store(store.clone());
    /// let (one, other) = (Client::connect(one).await.unwrap(), Client::connect(other).await.unwrap());
    /// let task = one.call_task("count_shared_words", serde_json::json!({})).await.unwrap();
    /// let done = other.wait_task(task.id(), Duration::from_secs(5)).await.unwrap();
    /// assert_eq!(done.status(), TaskStatus::Completed);
    /// assert_eq!(store.len(), 1);
    /// # }
    /// ```
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks.store = Some(store);
        self
    }

    /// How long an ended task (its result) is kept, then "not found" (default 1 hour). The
    /// task's `ttlMs` says it, counted from its creation.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::{Registry, Server, testing::Client};
    ///
    /// /// Adds two numbers, as a task.
    /// #[toolsmith::tool(task, read_only, closed_world)]
    /// async fn add_kept_numbers(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .task_ttl(Duration::from_secs(600));
    /// let client = Client::connect(server).await.unwrap();
    /// let task = client.call_task("add_kept_numbers", serde_json::json!({"a": 1, "b": 2})).await.unwrap();
    /// assert_eq!(task.ttl(), Some(Duration::from_secs(600)));
    /// # }
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
    /// use std::sync::{Arc, Mutex};
    /// use std::time::Duration;
    /// use toolsmith::task::{MemoryStore, StoreFuture, TaskRecord, TaskStore};
    /// # use toolsmith::task::{TaskEnd, TaskProgress};
    /// use toolsmith::{Registry, Server, testing::Client};
    ///
    /// /// A memory store that notes the lease of every task it is given.
    /// #[derive(Default)]
    /// struct Noting(MemoryStore, Mutex<Vec<Duration>>);
    ///
    /// impl TaskStore for Noting {
    ///     fn create<'a>(&'a self, task: &'a TaskRecord, lease: Duration) -> StoreFuture<'a, ()> {
    ///         self.1.lock().unwrap().push(lease);
    ///         self.0.create(task, lease)
    ///     }
    /// #   fn get<'a>(&'a self, id: &'a str, now: u64) -> StoreFuture<'a, Option<TaskRecord>> {
    /// #       self.0.get(id, now)
    /// #   }
    /// #   fn renew<'a>(&'a self, id: &'a str, lease: Duration) -> StoreFuture<'a, bool> {
    /// #       self.0.renew(id, lease)
    /// #   }
    /// #   fn progress<'a>(&'a self, id: &'a str, p: &'a TaskProgress, now: u64) -> StoreFuture<'a, ()> {
    /// #       self.0.progress(id, p, now)
    /// #   }
    /// #   fn finish<'a>(&'a self, id: &'a str, end: &'a TaskEnd) -> StoreFuture<'a, bool> {
    /// #       self.0.finish(id, end)
    /// #   }
    ///     // ... the rest as the memory store does.
    /// }
    ///
    /// /// Adds two numbers, as a task.
    /// #[toolsmith::tool(task, read_only, closed_world)]
    /// async fn add_leased_numbers(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let store = Arc::new(Noting::default());
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .task_store(store.clone())
    ///     .task_lease(Duration::from_secs(10));
    /// let client = Client::connect(server).await.unwrap();
    /// client.call_task("add_leased_numbers", serde_json::json!({"a": 1, "b": 2})).await.unwrap();
    /// assert_eq!(store.1.lock().unwrap()[0], Duration::from_secs(10));
    /// # }
    /// ```
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.tasks.lease = Some(lease);
        self
    }

    /// How often clients are told to poll a task (its `pollIntervalMs`, default 1 s); a run
    /// renews its lease, and so sees a cancel sent to another replica, at least as often.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::{Registry, Server, testing::Client};
    ///
    /// /// Adds two numbers, as a task.
    /// #[toolsmith::tool(task, read_only, closed_world)]
    /// async fn add_polled_numbers(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .task_poll_interval(Duration::from_millis(500));
    /// let client = Client::connect(server).await.unwrap();
    /// let task = client.call_task("add_polled_numbers", serde_json::json!({"a": 1, "b": 2})).await.unwrap();
    /// assert_eq!(task.poll_interval(), Some(Duration::from_millis(500)));
    /// # }
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
    /// use toolsmith::{Registry, Server, testing::Client};
    ///
    /// /// Watches the inbox, as a task that never ends.
    /// #[toolsmith::tool(task, read_only, closed_world)]
    /// async fn watch_capped_inbox() -> u32 {
    ///     std::future::pending().await
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap()).max_tasks(1);
    /// let client = Client::connect(server).await.unwrap();
    /// assert!(client.call_task("watch_capped_inbox", serde_json::json!({})).await.is_ok());
    /// let refused = client.call_task("watch_capped_inbox", serde_json::json!({})).await.unwrap_err();
    /// assert!(refused.message().contains("(max_tasks)"), "{refused}");
    /// # }
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
    /// use toolsmith::{Registry, Server, testing::Client};
    ///
    /// /// Watches the outbox, as a task that never ends.
    /// #[toolsmith::tool(task, read_only, closed_world)]
    /// async fn watch_outbox_per_caller() -> u32 {
    ///     std::future::pending().await
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .max_tasks_per_caller(1);
    /// let client = Client::connect(server).await.unwrap();
    /// assert!(client.call_task("watch_outbox_per_caller", serde_json::json!({})).await.is_ok());
    /// let refused = client.call_task("watch_outbox_per_caller", serde_json::json!({})).await.unwrap_err();
    /// assert!(refused.message().contains("(max_tasks_per_caller)"), "{refused}");
    /// # }
    /// ```
    pub fn max_tasks_per_caller(mut self, max: usize) -> Self {
        self.tasks.max_per_caller = Some(max);
        self
    }
}
