//! What a store keeps of a task: the task itself, its progress, how it ended.

use rmcp::model::JsonObject;
use serde::{Deserialize, Serialize};

use std::time::{SystemTime, UNIX_EPOCH};

use super::{STOPPED, TaskStatus};

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
