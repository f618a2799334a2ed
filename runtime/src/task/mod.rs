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
#[cfg(feature = "redis")]
mod redis;

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::JsonObject;
pub use rmcp::model::TaskStatus;
use serde::{Deserialize, Serialize};

#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use self::redis::RedisStore;
pub use memory::MemoryStore;

/// The status message of a task whose process stopped before it ended (its lease ran out,
/// or the server stopped).
///
/// ```
/// assert_eq!(toolsmith::task::STOPPED, "the server running it stopped");
/// ```
pub const STOPPED: &str = "the server running it stopped";

pub(crate) const DEFAULT_MAX_TASKS: usize = 1000;

pub(crate) const DEFAULT_MAX_TASKS_PER_CALLER: usize = 100;

/// What a store keeps of one task.
///
/// ```
/// use toolsmith::task::{TaskRecord, TaskStatus};
///
/// let task = TaskRecord::working("3f2a", "anonymous", "import_notes", 60_000, 1_000, 1_700_000_000_000);
/// assert_eq!(task.status, TaskStatus::Working);
/// assert!(task.result.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// Unguessable, made by the server.
    pub id: String,
    /// Who may see and cancel it: the caller who started it (see [`Caller`](crate::context::Caller)).
    pub owner: String,
    /// The tool it runs.
    pub tool: String,
    pub status: TaskStatus,
    /// Its status message: how it ended, or its last progress message.
    pub message: Option<String>,
    /// Its last progress, as the tool reported it through [`Progress`](crate::Progress).
    pub progress: Option<TaskProgress>,
    /// Once `completed`, the call's result (`CallToolResult`); once `failed`, the JSON-RPC
    /// error.
    pub result: Option<JsonObject>,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// When it last changed.
    pub updated_ms: u64,
    /// How long it is kept once it ended.
    pub ttl_ms: u64,
    /// How often a client should poll it.
    pub poll_ms: u64,
}

impl TaskRecord {
    /// A task that has just started, at `now_ms`.
    ///
    /// ```
    /// let task = toolsmith::task::TaskRecord::working("id", "owner", "tool", 10, 1, 5);
    /// assert_eq!((task.created_ms, task.updated_ms), (5, 5));
    /// ```
    pub fn working(
        id: impl Into<String>,
        owner: impl Into<String>,
        tool: impl Into<String>,
        ttl_ms: u64,
        poll_ms: u64,
        now_ms: u64,
    ) -> TaskRecord {
        TaskRecord {
            id: id.into(),
            owner: owner.into(),
            tool: tool.into(),
            status: TaskStatus::Working,
            message: None,
            progress: None,
            result: None,
            created_ms: now_ms,
            updated_ms: now_ms,
            ttl_ms,
            poll_ms,
        }
    }

    /// Whether it ended (`completed`, `failed` or `cancelled`).
    ///
    /// ```
    /// let task = toolsmith::task::TaskRecord::working("id", "owner", "tool", 10, 1, 5);
    /// assert!(!task.ended());
    /// ```
    pub fn ended(&self) -> bool {
        self.status.is_terminal()
    }
}

/// A task's progress, as its tool last reported it.
///
/// ```
/// let progress = toolsmith::task::TaskProgress { progress: 3.0, total: Some(10.0), message: None };
/// assert_eq!(progress.status_message(), "3/10");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskProgress {
    pub progress: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl TaskProgress {
    /// The status message it makes: the tool's message, else `done/total` (or `done`).
    ///
    /// ```
    /// let progress = toolsmith::task::TaskProgress { progress: 2.0, total: None, message: Some("note 2".into()) };
    /// assert_eq!(progress.status_message(), "note 2");
    /// ```
    pub fn status_message(&self) -> String {
        match (&self.message, self.total) {
            (Some(message), _) => message.clone(),
            (None, Some(total)) => format!("{}/{}", self.progress, total),
            (None, None) => format!("{}", self.progress),
        }
    }
}

/// How a task ended: its terminal status, message and result.
///
/// ```
/// use toolsmith::task::{TaskEnd, TaskStatus};
///
/// let end = TaskEnd { status: TaskStatus::Cancelled, message: Some("cancelled".into()), result: None, at_ms: 0 };
/// assert!(end.status.is_terminal());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TaskEnd {
    /// `completed`, `failed` or `cancelled`.
    pub status: TaskStatus,
    pub message: Option<String>,
    /// The result (`completed`) or the error (`failed`).
    pub result: Option<JsonObject>,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

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

    /// Keeps `value` under `key` for `ttl` (sign-in state).
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        let _ = (key, value, ttl);
        no_state()
    }

    /// Keeps `value` under `key` for `ttl` when nothing is kept there: whether it was.
    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        let _ = (key, value, ttl);
        no_state()
    }

    /// The value kept under `key`.
    fn read<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        let _ = key;
        no_state()
    }

    /// Reads and deletes the value under `key` at once: one taker only.
    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        let _ = key;
        no_state()
    }

    /// Counts one more under `key`: the new count; it expires `window` after its first.
    fn count<'a>(&'a self, key: &'a str, window: Duration) -> StoreFuture<'a, u64> {
        let _ = (key, window);
        no_state()
    }

    /// The keys and values kept under `prefix`, at most 10,000.
    fn scan<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, Vec<(String, String)>> {
        let _ = prefix;
        no_state()
    }
}

/// The error of a store that keeps no sign-in state.
fn no_state<'a, T: Send + 'a>() -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Err(StoreError::new(
        "this task store keeps no sign-in state",
    ))))
}

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The end of a task whose lease ran out at `now_ms`.
pub(crate) fn stopped(now_ms: u64) -> TaskEnd {
    TaskEnd {
        status: TaskStatus::Failed,
        message: Some(STOPPED.to_owned()),
        result: Some(error_object(-32603, STOPPED)),
        at_ms: now_ms,
    }
}

/// A JSON-RPC error object (a failed task's `error`).
pub(crate) fn error_object(code: i32, message: &str) -> JsonObject {
    let mut error = JsonObject::new();
    error.insert("code".into(), code.into());
    error.insert("message".into(), message.into());
    error
}

/// `record` ended as `end` says.
pub(crate) fn apply_end(record: &mut TaskRecord, end: &TaskEnd) {
    record.status = end.status;
    record.message = end.message.clone();
    record.result = end.result.clone();
    record.updated_ms = end.at_ms;
}

#[cfg(all(test, feature = "testing"))]
mod tests;
