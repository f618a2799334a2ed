//! What a task is, and where it is kept: a tool call that goes on after its request was
//! answered with the task's handle (`#[tool(task)]`, the tasks extension of MCP 2026-07-28,
//! SEP-2663). The client polls `tasks/get` for its status, its progress and, once it
//! completed, its result, or stops it with `tasks/cancel`.
//!
//! A task runs on the process that accepted its call; what it is (its status, progress,
//! result, owner) lives in a [`TaskStore`], so that behind a load balancer any replica
//! answers `tasks/get` and `tasks/cancel`. [`MemoryStore`] is the default (one process,
//! stdio); `RedisStore` (feature `redis`) is shared by replicas.
//!
//! The process running a task renews its *lease* in the store while it runs. A task whose
//! lease ran out (its process died) is `failed` with [`STOPPED`] when it is next read: it is
//! never left `working`.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use toolsmith::task::{MemoryStore, TaskStatus};
//! use toolsmith::{Registry, Server, testing::Client};
//!
//! /// Sums the numbers, as a task.
//! #[toolsmith::tool(task, read_only, closed_world)]
//! async fn sum_stored_numbers(numbers: Vec<i64>) -> i64 {
//!     numbers.iter().sum()
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let store = Arc::new(MemoryStore::new());
//! let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
//!     .task_store(store.clone());
//! let client = Client::connect(server).await.unwrap();
//! let task = client.call_task("sum_stored_numbers", serde_json::json!({"numbers": [1, 2, 3]})).await.unwrap();
//! assert_eq!(store.len(), 1, "the task is in the store from its start");
//! let done = client.wait_task(task.id(), Duration::from_secs(5)).await.unwrap();
//! assert_eq!(done.status(), TaskStatus::Completed);
//! assert_eq!(done.result().unwrap().text(), "6");
//! # }
//! ```

mod memory;
mod record;
#[cfg(feature = "redis")]
mod redis;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub use rmcp::model::TaskStatus;

#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use self::redis::RedisStore;
pub use memory::MemoryStore;
pub use record::{TaskEnd, TaskProgress, TaskRecord};
pub(crate) use record::{apply_end, error_object, now_ms, stopped};

/// The status message of a task whose process stopped before it ended (its lease ran out,
/// or the server stopped).
///
/// ```
/// assert_eq!(toolsmith::task::STOPPED, "the server running it stopped");
/// ```
pub const STOPPED: &str = "the server running it stopped";

pub(crate) const DEFAULT_MAX_TASKS: usize = 1000;

pub(crate) const DEFAULT_MAX_TASKS_PER_CALLER: usize = 100;

/// A store that failed (unreachable, or answering what no store of tasks would).
///
/// ```
/// let err = toolsmith::task::StoreError::new("connection refused");
/// assert_eq!(err.to_string(), "the task store failed: connection refused");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(String);

impl StoreError {
    /// An error that says `why`.
    pub fn new(why: impl std::fmt::Display) -> StoreError {
        StoreError(why.to_string())
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the task store failed: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// What a store's operations return.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Where tasks are kept: shared by every replica that may be asked about them. Every
/// transition out of `working` is a compare-and-set: a task ends once (a late completion
/// does not undo a cancel, nor a cancel a completion).
///
/// ```
/// use std::time::Duration;
/// use toolsmith::task::{MemoryStore, TaskRecord, TaskStore};
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let store = MemoryStore::new();
/// let task = TaskRecord::working("t1", "me", "import_notes", 60_000, 1_000, 0);
/// store.create(&task, Duration::from_secs(30)).await.unwrap();
/// assert_eq!(store.get("t1", 0).await.unwrap(), Some(task));
/// # });
/// ```
pub trait TaskStore: Send + Sync + 'static {
    /// Keeps a new `working` task with its first lease. The task is there once this
    /// returns: only then is its handle sent.
    fn create<'a>(&'a self, task: &'a TaskRecord, lease: Duration) -> StoreFuture<'a, ()>;

    /// The task as it stands, or `None` (unknown, or its TTL ran out). A `working` task
    /// whose lease ran out is first failed with [`STOPPED`] (at `now_ms`), for its TTL.
    fn get<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Renews a `working` task's lease for `lease`; `false` when it is no longer working
    /// (cancelled, failed, or gone): its run stops.
    fn renew<'a>(&'a self, id: &'a str, lease: Duration) -> StoreFuture<'a, bool>;

    /// Records a `working` task's progress (and its status message) at `now_ms`.
    fn progress<'a>(
        &'a self,
        id: &'a str,
        progress: &'a TaskProgress,
        now_ms: u64,
    ) -> StoreFuture<'a, ()>;

    /// Ends a `working` task as `end` says, kept from then for its TTL; `false` (and
    /// nothing changed) when it had ended already or is gone.
    fn finish<'a>(&'a self, id: &'a str, end: &'a TaskEnd) -> StoreFuture<'a, bool>;

    /// Marks the request state whose digest is `digest` used, for `ttl` (no longer than the
    /// state lives): `Some(true)` the first time, `Some(false)` every time after, on every
    /// replica that shares the store. `None` (the default, and [`MemoryStore`]'s) when the
    /// store keeps no such marks: a state then opens more than once until it expires.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::task::{MemoryStore, TaskStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let redeemed = MemoryStore::new().redeem("digest", Duration::from_secs(60)).await;
    /// assert_eq!(redeemed.unwrap(), None);
    /// # });
    /// ```
    fn redeem<'a>(&'a self, digest: &'a str, ttl: Duration) -> StoreFuture<'a, Option<bool>> {
        let _ = (digest, ttl);
        Box::pin(std::future::ready(Ok(None)))
    }

    /// Keeps a remembered approval under `key` for `ttl`, for every replica that shares the
    /// store: `false` (the default, and [`MemoryStore`]'s) when the store keeps none (the
    /// server then remembers it in its own process only).
    fn remember<'a>(&'a self, key: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        let _ = (key, ttl);
        Box::pin(std::future::ready(Ok(false)))
    }

    /// Whether an approval is remembered under `key` (`false` for a store that keeps none).
    fn remembered<'a>(&'a self, key: &'a str) -> StoreFuture<'a, bool> {
        let _ = key;
        Box::pin(std::future::ready(Ok(false)))
    }

    /// Keeps a remembered approval under `key` for `ttl` with `description` (JSON: who, which
    /// tool, which arguments, until when), so that [`remembered_all`](TaskStore::remembered_all)
    /// lists it; as [`remember`](TaskStore::remember) otherwise (the default keeps no
    /// description, and calls it).
    fn remember_as<'a>(
        &'a self,
        key: &'a str,
        description: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        let _ = description;
        self.remember(key, ttl)
    }

    /// Every approval remembered with a description: its key, its description, and how many
    /// milliseconds it has left (none for a store that keeps none, the default).
    ///
    /// ```
    /// use toolsmith::task::{MemoryStore, TaskStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert!(MemoryStore::new().remembered_all().await.unwrap().is_empty());
    /// # });
    /// ```
    fn remembered_all(&self) -> StoreFuture<'_, Vec<(String, String, u64)>> {
        Box::pin(std::future::ready(Ok(Vec::new())))
    }

    /// Forgets the approval remembered under `key`: whether there was one.
    fn forget<'a>(&'a self, key: &'a str) -> StoreFuture<'a, bool> {
        let _ = key;
        Box::pin(std::future::ready(Ok(false)))
    }

    /// Keeps `message` under `key` for `ttl`, for the replica that waits for it to take
    /// ([`take_handed`](TaskStore::take_handed)): an approval service's decision that came
    /// to another replica than the one whose call waits. `false` (the default, and
    /// [`MemoryStore`]'s) when the store passes nothing between replicas.
    fn hand_over<'a>(
        &'a self,
        key: &'a str,
        message: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        let _ = (key, message, ttl);
        Box::pin(std::future::ready(Ok(false)))
    }

    /// Takes the message handed over under `key`, if there is one (it is gone from the store
    /// then): `None` for a store that passes nothing.
    fn take_handed<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        let _ = key;
        Box::pin(std::future::ready(Ok(None)))
    }

    /// Keeps `value` under `key` for `ttl` (at least a millisecond), replacing what was
    /// there: sign-in state (clients, consents, signing keys) shared by every replica. The
    /// default keeps nothing: an error that says so.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::task::{MemoryStore, TaskStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let store = MemoryStore::new();
    /// store.put("client:a", "one", Duration::from_secs(60)).await.unwrap();
    /// store.put("client:a", "two", Duration::from_secs(60)).await.unwrap();
    /// assert_eq!(store.read("client:a").await.unwrap().as_deref(), Some("two"));
    /// # });
    /// ```
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        let _ = (key, value, ttl);
        no_state()
    }

    /// Keeps `value` under `key` for `ttl` only when nothing is there: `true` when it was
    /// kept, `false` (and nothing changed) when `key` holds a value already. Of two replicas
    /// putting one key at once, one gets `true`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::task::{MemoryStore, TaskStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let store = MemoryStore::new();
    /// assert!(store.put_new("jti:1", "used", Duration::from_secs(60)).await.unwrap());
    /// assert!(!store.put_new("jti:1", "again", Duration::from_secs(60)).await.unwrap());
    /// assert_eq!(store.read("jti:1").await.unwrap().as_deref(), Some("used"));
    /// # });
    /// ```
    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        let _ = (key, value, ttl);
        no_state()
    }

    /// The value under `key`, or `None` (never put, taken, or its time to live ran out).
    ///
    /// ```
    /// use toolsmith::task::{MemoryStore, TaskStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// assert_eq!(MemoryStore::new().read("nothing").await.unwrap(), None);
    /// # });
    /// ```
    fn read<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        let _ = key;
        no_state()
    }

    /// The value under `key`, deleted at once: of two callers taking one key (on one
    /// replica or two), one gets it and the other `None`. An authorization code is
    /// redeemed so, once.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::task::{MemoryStore, TaskStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let store = MemoryStore::new();
    /// store.put("code:x", "grant", Duration::from_secs(60)).await.unwrap();
    /// assert_eq!(store.take("code:x").await.unwrap().as_deref(), Some("grant"));
    /// assert_eq!(store.take("code:x").await.unwrap(), None, "taken once");
    /// # });
    /// ```
    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        let _ = key;
        no_state()
    }

    /// Counts one more under `key` and returns the new count (1 the first time): a rate
    /// limit's window, which expires `window` after its first count (later counts do not
    /// extend it). Counting a key that holds something else than a count is an error.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::task::{MemoryStore, TaskStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let store = MemoryStore::new();
    /// let minute = Duration::from_secs(60);
    /// assert_eq!(store.count("register:127.0.0.1", minute).await.unwrap(), 1);
    /// assert_eq!(store.count("register:127.0.0.1", minute).await.unwrap(), 2);
    /// assert_eq!(store.count("register:10.0.0.1", minute).await.unwrap(), 1);
    /// # });
    /// ```
    fn count<'a>(&'a self, key: &'a str, window: Duration) -> StoreFuture<'a, u64> {
        let _ = (key, window);
        no_state()
    }

    /// Every key that starts with `prefix` and its value, in key order (the keys as they
    /// were put, without the store's own namespace): at most [`MAX_SCANNED`] of them.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::task::{MemoryStore, TaskStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let store = MemoryStore::new();
    /// let day = Duration::from_secs(86_400);
    /// store.put("key:b", "2", day).await.unwrap();
    /// store.put("key:a", "1", day).await.unwrap();
    /// store.put("other", "3", day).await.unwrap();
    /// let keys = store.scan("key:").await.unwrap();
    /// assert_eq!(keys, [("key:a".to_owned(), "1".to_owned()), ("key:b".to_owned(), "2".to_owned())]);
    /// # });
    /// ```
    fn scan<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, Vec<(String, String)>> {
        let _ = prefix;
        no_state()
    }

    /// Keeps what is under `key` for another `ttl`, if anything is: `false` when nothing is
    /// (it is not made again). The default (and [`MemoryStore`]'s, which shares nothing)
    /// keeps nothing: `false`.
    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        let _ = (key, ttl);
        Box::pin(std::future::ready(Ok(false)))
    }

    /// Sends `message` to every replica [listening](TaskStore::listen) on `channel`, this
    /// one too: `false` (the default, and [`MemoryStore`]'s) when the store passes nothing
    /// between replicas. Sessions on any replica are told so of an answer to a question
    /// another replica asked.
    fn publish<'a>(&'a self, channel: &'a str, message: &'a str) -> StoreFuture<'a, bool> {
        let _ = (channel, message);
        Box::pin(std::future::ready(Ok(false)))
    }

    /// The messages [published](TaskStore::publish) on `channel` from now on, as long as the
    /// receiver is kept (a lost connection is made again; what was published meanwhile is
    /// missed): `None` (the default, and [`MemoryStore`]'s) when the store passes nothing
    /// between replicas, and the server keeps its sessions in its own process.
    ///
    /// ```
    /// use toolsmith::task::{MemoryStore, TaskStore};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let store = MemoryStore::new();
    /// assert!(store.listen("sessions").await.unwrap().is_none());
    /// assert!(!store.publish("sessions", "hello").await.unwrap());
    /// # });
    /// ```
    fn listen<'a>(&'a self, channel: &'a str) -> StoreFuture<'a, Option<Messages>> {
        let _ = channel;
        Box::pin(std::future::ready(Ok(None)))
    }
}

/// What a replica hears on a channel of a shared store ([`TaskStore::listen`]).
pub type Messages = tokio::sync::mpsc::Receiver<String>;

/// The most entries [`TaskStore::scan`] returns.
///
/// ```
/// assert_eq!(toolsmith::task::MAX_SCANNED, 10_000);
/// ```
pub const MAX_SCANNED: usize = 10_000;

/// What a store that keeps no sign-in state answers.
fn no_state<'a, T: Send + 'a>() -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Err(StoreError::new(
        "this task store keeps no sign-in state",
    ))))
}

#[cfg(all(test, feature = "testing"))]
mod tests;
