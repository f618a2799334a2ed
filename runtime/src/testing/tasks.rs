//! Calling a tool as a task, polling it and cancelling it (the tasks extension).

use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelTaskParams, CancelTaskRequest,
    ClientCapabilities, ClientRequest, DetailedTask, GetTaskParams, GetTaskRequest, JsonObject,
    RequestMetaObject, ServerResult, TaskPayload,
};
use serde_json::Value;

use super::driver::Reply;
use super::{CallError, CallOutcome, Client};
use crate::task::{TaskProgress, TaskStatus};

/// A task as the server last said it: the handle of a call, or `tasks/get`.
///
/// ```
/// use std::time::Duration;
/// use toolsmith::task::TaskStatus;
///
/// /// Count the words of a long text, as a task.
/// #[toolsmith::tool(task, read_only, closed_world)]
/// async fn count_words_slowly(text: String) -> usize {
///     text.split_whitespace().count()
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "count_words_slowly"));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let task = client.call_task("count_words_slowly", serde_json::json!({"text": "one two three"})).await.unwrap();
/// let done = client.wait_task(task.id(), Duration::from_secs(5)).await.unwrap();
/// assert!(done.ended());
/// assert_eq!(done.status(), TaskStatus::Completed);
/// assert_eq!(done.result().unwrap().text(), "3");
/// assert!(done.error().is_none());
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct TaskState {
    tool: String,
    task: DetailedTask,
    progress: Option<TaskProgress>,
    wrapped: bool,
}

impl TaskState {
    /// Its id.
    pub fn id(&self) -> &str {
        &self.task.task.task_id
    }

    /// Its status: `working`, `completed`, `failed` or `cancelled`.
    pub fn status(&self) -> TaskStatus {
        self.task.task.status
    }

    /// Whether it ended.
    pub fn ended(&self) -> bool {
        self.status().is_terminal()
    }

    /// Its status message: its last progress message, or how it ended.
    pub fn message(&self) -> Option<&str> {
        self.task.task.status_message.as_deref()
    }

    /// Its last progress, as the tool reported it.
    pub fn progress(&self) -> Option<&TaskProgress> {
        self.progress.as_ref()
    }

    /// How long it is kept, counted from its creation (`ttlMs`).
    pub fn ttl(&self) -> Option<Duration> {
        self.task.task.ttl_ms.map(Duration::from_millis)
    }

    /// How often the server asks to be polled (`pollIntervalMs`).
    pub fn poll_interval(&self) -> Option<Duration> {
        self.task.task.poll_interval_ms.map(Duration::from_millis)
    }

    /// Once completed: the call's result, as [`Client::call_raw`] returns it.
    pub fn result(&self) -> Option<CallOutcome> {
        let TaskPayload::Completed { result } = &self.task.payload else {
            return None;
        };
        let result = serde_json::from_value(Value::Object(result.clone())).ok()?;
        Some(CallOutcome::new(
            &self.tool,
            result,
            Vec::new(),
            None,
            self.wrapped,
        ))
    }

    /// Once failed: the JSON-RPC error (`code`, `message`).
    pub fn error(&self) -> Option<&JsonObject> {
        match &self.task.payload {
            TaskPayload::Failed { error } => Some(error),
            _ => None,
        }
    }
}

/// The `_meta` of a request from a client with the tasks extension.
fn declaring() -> RequestMetaObject {
    let mut meta = RequestMetaObject::default();
    meta.set_client_capabilities(ClientCapabilities::builder().enable_tasks().build());
    meta
}

fn protocol(what: &str, other: impl std::fmt::Debug) -> CallError {
    CallError::Protocol {
        code: -32603,
        message: format!("not a {what} answer: {other:?}"),
    }
}

impl Client {
    /// Calls `name` as a task (declaring the tasks extension for this call): the server
    /// answers with the task's handle, and the tool runs on. A tool that does not declare
    /// `task` is answered with its result instead, which is an error here.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolsmith::task::TaskStatus;
    ///
    /// /// Add two numbers, slowly.
    /// #[toolsmith::tool(task, read_only)]
    /// async fn slow_add(a: i64, b: i64) -> i64 {
    ///     tokio::time::sleep(Duration::from_millis(50)).await;
    ///     a + b
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let tools = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(tools)).await.unwrap();
    /// let task = client.call_task("slow_add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
    /// assert_eq!(task.status(), TaskStatus::Working);
    /// let done = client.wait_task(task.id(), Duration::from_secs(5)).await.unwrap();
    /// assert_eq!(done.status(), TaskStatus::Completed);
    /// assert_eq!(done.result().unwrap().text(), "5");
    /// # }
    /// ```
    pub async fn call_task(&self, name: &str, args: Value) -> Result<TaskState, CallError> {
        let Value::Object(arguments) = args else {
            return Err(CallError::Protocol {
                code: -32602,
                message: format!("the arguments of '{name}' must be a JSON object"),
            });
        };
        let mut params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        params.meta = Some(declaring());
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let _turn = self.turn.lock().await;
        match self.request(request, None).await {
            Reply::Result(result) => match *result {
                ServerResult::CreateTaskResult(created) => Ok(self.state(
                    name,
                    DetailedTask::new(created.task, TaskPayload::Working),
                    None,
                )),
                // Refused before a task was made (its caps, a confirmation declined): the
                // error result, as a call's.
                ServerResult::CallToolResult(result) if result.is_error == Some(true) => {
                    let outcome = CallOutcome::new(name, result, Vec::new(), None, false);
                    Err(CallError::from_outcome(&outcome)
                        .unwrap_or_else(|| protocol("task", "an error result")))
                }
                other => Err(protocol("task", other)),
            },
            other => Err(reply_error(name, other)),
        }
    }

    /// The task `id` now (`tasks/get`), for the caller this client is.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// /// Count to three, slowly.
    /// #[toolsmith::tool(task, read_only)]
    /// async fn count_slowly() -> u32 {
    ///     3
    /// }
    ///
    /// let tools = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(tools)).await.unwrap();
    /// let err = client.task("no-such-task").await.unwrap_err();
    /// assert!(err.message().contains("task not found"), "{err}");
    /// # }
    /// ```
    pub async fn task(&self, id: &str) -> Result<TaskState, CallError> {
        let mut params = GetTaskParams::new(id);
        params.meta = Some(declaring());
        let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(params));
        let _turn = self.turn.lock().await;
        match self.request(request, None).await {
            Reply::Result(result) => match *result {
                ServerResult::GetTaskResult(got) => {
                    let progress = got
                        .meta
                        .as_ref()
                        .and_then(|meta| meta.0.get(crate::server::TASK_PROGRESS_META))
                        .and_then(|value| serde_json::from_value(value.clone()).ok());
                    let tool = self.task_tool(id);
                    Ok(self.state(&tool, got.task, progress))
                }
                other => Err(protocol("tasks/get", other)),
            },
            other => Err(reply_error("tasks/get", other)),
        }
    }

    /// Polls task `id` until it ended, at most `within` (then an error).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let err = client.wait_task("no-such-task", std::time::Duration::from_secs(1)).await;
    /// assert!(err.is_err());
    /// # }
    /// ```
    pub async fn wait_task(&self, id: &str, within: Duration) -> Result<TaskState, CallError> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let task = self.task(id).await?;
            if task.ended() {
                return Ok(task);
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(CallError::Timeout {
                    tool: self.task_tool(id),
                    after: within,
                });
            }
            let every = task
                .poll_interval()
                .unwrap_or(Duration::from_millis(50))
                .min(Duration::from_millis(50));
            tokio::time::sleep(every).await;
        }
    }

    /// Cancels task `id` (`tasks/cancel`).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// assert!(client.cancel_task("no-such-task").await.is_err());
    /// # }
    /// ```
    pub async fn cancel_task(&self, id: &str) -> Result<(), CallError> {
        let mut params = CancelTaskParams::new(id);
        params.meta = Some(declaring());
        let request = ClientRequest::CancelTaskRequest(CancelTaskRequest::new(params));
        let _turn = self.turn.lock().await;
        match self.request(request, None).await {
            Reply::Result(_) => Ok(()),
            other => Err(reply_error("tasks/cancel", other)),
        }
    }

    fn state(&self, tool: &str, task: DetailedTask, progress: Option<TaskProgress>) -> TaskState {
        self.tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(task.task.task_id.clone())
            .or_insert_with(|| tool.to_owned());
        TaskState {
            tool: tool.to_owned(),
            wrapped: self.wrapped.get(tool).copied().unwrap_or(false),
            task,
            progress,
        }
    }

    /// The tool task `id` runs, when this client started it.
    fn task_tool(&self, id: &str) -> String {
        self.tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
            .unwrap_or_default()
    }
}

fn reply_error(what: &str, reply: Reply) -> CallError {
    match reply {
        Reply::Error(error) => CallError::Protocol {
            code: error.code.0,
            message: error.message.into_owned(),
        },
        Reply::TimedOut(after) => CallError::Timeout {
            tool: what.to_owned(),
            after,
        },
        Reply::Closed => CallError::Closed {
            tool: what.to_owned(),
        },
        Reply::Result(result) => protocol(what, result),
    }
}
