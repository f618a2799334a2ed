//! Testing your tools: an in-process client (feature `testing`).
//!
//! [`Client::connect`] serves a [`Server`](crate::Server) in-process, over the same line framing as stdio,
//! and speaks MCP to it: calls come back as typed outcomes, with the call's own
//! notifications, and every way a call can fail is a [`CallError`] you can match.
//!
//! ```
//! use toolsmith::testing::{CallError, Client};
//! use toolsmith::{error::ErrorKind, Registry, Server, ToolError, tool};
//!
//! /// Get a note by id.
//! #[tool(read_only, closed_world)]
//! fn get_note_by_id(note_id: u64) -> Result<String, ToolError> {
//!     Err(ToolError::new(format!("No note with id {note_id}.")))
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let tools = Registry::from_module(module_path!()).unwrap();
//! let client = Client::connect(Server::with_registry(tools)).await.unwrap();
//! let err = client.call("get_note_by_id", serde_json::json!({"note_id": 99})).await.unwrap_err();
//! assert!(matches!(err, CallError::Tool { kind: ErrorKind::Tool, .. }));
//! assert_eq!(err.message(), "No note with id 99.");
//! # }
//! ```
//!
//! Calls on one client run one at a time, so that the notifications each outcome holds are
//! that call's alone; connect a second client for calls at the same time. Dropping the client
//! ends its server.

mod answers;
#[cfg(all(feature = "webhook", feature = "http"))]
mod approvals;
mod asked;
mod connect;
mod driver;
mod error;
mod listed;
mod options;
mod outcome;
mod requests;
mod resource_prompt_methods;
mod store;
mod tasks;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientNotification, ClientRequest, ListToolsRequest, PaginatedRequestParams, RequestId,
    RequestMetaObject, ServerResult, Tool,
};
use serde_json::Value;
use tokio::task::JoinHandle;

pub use answers::{Complete, Completions, PromptOutcome, ReadOutcome};
#[cfg(all(feature = "webhook", feature = "http"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "webhook", feature = "http"))))]
pub use approvals::ApprovalService;
pub use asked::{Answer, Confirmation, Form};
pub use error::CallError;
pub use listed::ListedTool;
pub use options::CallOptions;
pub use outcome::{CallOutcome, DataError};
pub use requests::{Answerer, decline};
pub use store::check_task_store;
pub use tasks::TaskState;

use crate::Error;
use driver::{Driver, Reply};

/// An MCP client connected in-process to a [`Server`](crate::Server).
///
/// ```
/// /// Add two numbers.
/// #[toolsmith::tool(read_only, closed_world)]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
/// let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(registry)).await.unwrap();
/// let tools = client.list_tools().await.unwrap();
/// assert_eq!(tools.len(), 1, "this module's one tool");
/// let sum = client.call("add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
/// assert_eq!(sum.data::<i64>().unwrap(), 5);
/// # }
/// ```
pub struct Client {
    driver: Driver,
    /// One call at a time: each outcome holds its own call's notifications.
    turn: tokio::sync::Mutex<()>,
    next_id: AtomicI64,
    /// Whether each tool wraps its structured result as `{"result": ...}`.
    wrapped: HashMap<String, bool>,
    /// The server's scope names and tool set, for [`ListedTool::scopes`].
    scope_names: crate::tool::ScopeNames,
    registry: crate::registry::RegistryHandle,
    /// The tool of each task this client started, by id.
    tasks: std::sync::Mutex<HashMap<String, String>>,
    /// The server's `instructions`, as `initialize` gave them.
    instructions: Option<String>,
    server: JoinHandle<()>,
}

impl Client {
    /// Every tool the server offers, following pagination.
    ///
    /// ```
    /// /// Look up a word.
    /// #[toolsmith::tool(read_only, closed_world, title = "Dictionary")]
    /// fn define(word: String) -> String {
    ///     format!("{word}: a word")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::with_registry(registry)).await.unwrap();
    /// let tools = client.list_tools().await.unwrap();
    /// assert_eq!(tools[0].name, "define");
    /// assert_eq!(tools[0].title.as_deref(), Some("Dictionary"));
    /// let annotations = tools[0].annotations.as_ref().unwrap();
    /// assert_eq!((annotations.read_only_hint, annotations.open_world_hint), (Some(true), Some(false)));
    /// assert_eq!(tools[0].input_schema["required"], serde_json::json!(["word"]));
    /// # }
    /// ```
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        let _turn = self.turn.lock().await;
        let mut tools = Vec::new();
        let mut cursor = None;
        loop {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let list = ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params));
            match self.request(list, None).await {
                Reply::Result(result) => match *result {
                    ServerResult::ListToolsResult(page) => {
                        tools.extend(page.tools);
                        cursor = page.next_cursor;
                        if cursor.is_none() {
                            return Ok(tools);
                        }
                    }
                    other => {
                        return Err(Error::Protocol {
                            request: "tools/list",
                            answer: format!("not a tools/list result: {other:?}"),
                        });
                    }
                },
                other => {
                    return Err(Error::Protocol {
                        request: "tools/list",
                        answer: format!("{other:?}"),
                    });
                }
            }
        }
    }

    /// Every tool the server offers, in toolsmith's terms: name, title, [`Hints`](crate::Hints),
    /// category, tags and scopes, so that a test asserts what a client is told without
    /// rmcp's field names.
    ///
    /// ```
    /// use toolsmith::{Hints, Registry, Server, tool};
    ///
    /// /// Delete a note.
    /// #[tool(destructive, idempotent, closed_world, title = "Delete note")]
    /// fn trash_note(note_id: u64) -> bool {
    ///     note_id > 0
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let registry = Registry::from_module(module_path!()).unwrap();
    /// let client = toolsmith::testing::Client::connect(Server::with_registry(registry)).await.unwrap();
    /// let tools = client.tools().await.unwrap();
    /// let delete = tools.iter().find(|t| t.name == "trash_note").unwrap();
    /// let hints = Hints { read_only: false, destructive: true, idempotent: true, open_world: false };
    /// assert_eq!(delete.hints, hints);
    /// assert_eq!(delete.title.as_deref(), Some("Delete note"));
    /// assert_eq!(delete.scopes, ["tools:destructive"]);
    /// # }
    /// ```
    pub async fn tools(&self) -> Result<Vec<ListedTool>, Error> {
        let tools = self.list_tools().await?;
        Ok(tools
            .iter()
            .map(|tool| ListedTool::new(tool, &self.scope_names, &self.registry.current()))
            .collect())
    }

    /// Calls `name` with `args` (a JSON object). A success is `Ok`; an error result and a
    /// protocol error are a [`CallError`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// # let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let err = client.call("no_such_tool", serde_json::json!({})).await.unwrap_err();
    /// assert!(matches!(err, toolsmith::testing::CallError::Protocol { code: -32602, .. }));
    /// # }
    /// ```
    pub async fn call(&self, name: &str, args: Value) -> Result<CallOutcome, CallError> {
        self.call_with(name, args, CallOptions::default()).await
    }

    /// Like [`call`](Self::call), with a timeout or a progress token.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// # let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let options = toolsmith::testing::CallOptions::default().progress_token("p");
    /// let outcome = client.call_with("no_such_tool", serde_json::json!({}), options).await;
    /// assert!(outcome.is_err());
    /// # }
    /// ```
    pub async fn call_with(
        &self,
        name: &str,
        args: Value,
        options: CallOptions,
    ) -> Result<CallOutcome, CallError> {
        let outcome = self.call_raw_with(name, args, options).await?;
        match CallError::from_outcome(&outcome) {
            Some(err) => Err(err),
            None => Ok(outcome),
        }
    }

    /// Calls `name`, and returns an error result as a value (`is_error()` is true), like
    /// `raise_on_error=False` in the Python SDK. A protocol error is still an `Err`.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// # let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let outcome = client.call_raw("no_such_tool", serde_json::json!({})).await;
    /// assert!(outcome.is_err(), "an unknown tool is a protocol error");
    /// # }
    /// ```
    pub async fn call_raw(&self, name: &str, args: Value) -> Result<CallOutcome, CallError> {
        self.call_raw_with(name, args, CallOptions::default()).await
    }

    async fn call_raw_with(
        &self,
        name: &str,
        args: Value,
        options: CallOptions,
    ) -> Result<CallOutcome, CallError> {
        let Value::Object(arguments) = args else {
            return Err(CallError::Protocol {
                code: -32602,
                message: format!("the arguments of '{name}' must be a JSON object"),
            });
        };
        let mut params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        if let Some(token) = &options.progress {
            params.meta = Some(RequestMetaObject::with_progress_token(token.clone()));
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let _turn = self.turn.lock().await;
        match self.request(request, options.timeout).await {
            Reply::Result(result) => match *result {
                ServerResult::CallToolResult(result) => {
                    let notices = self.driver.take_notices();
                    let wrapped = self.wrapped.get(name).copied().unwrap_or(false);
                    Ok(CallOutcome::new(
                        name,
                        result,
                        notices,
                        options.progress,
                        wrapped,
                    ))
                }
                other => Err(CallError::Protocol {
                    code: -32603,
                    message: format!("not a tools/call result: {other:?}"),
                }),
            },
            Reply::Error(error) => Err(CallError::Protocol {
                code: error.code.0,
                message: error.message.into_owned(),
            }),
            Reply::TimedOut(after) => Err(CallError::Timeout {
                tool: name.to_owned(),
                after,
            }),
            Reply::Closed => Err(CallError::Closed {
                tool: name.to_owned(),
            }),
        }
    }

    /// Sends `request` and waits for its answer, at most `timeout` (then cancels it).
    async fn request(&self, request: ClientRequest, timeout: Option<Duration>) -> Reply {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        self.driver.take_notices();
        let answer = self.driver.request(id.clone(), request);
        let Some(timeout) = timeout else {
            return answer.await;
        };
        match tokio::time::timeout(timeout, answer).await {
            Ok(answer) => answer,
            Err(_) => {
                self.driver.forget(&id);
                let param =
                    CancelledNotificationParam::new(Some(id), Some("the test's timeout".into()));
                self.driver
                    .notify(ClientNotification::CancelledNotification(
                        CancelledNotification::new(param),
                    ));
                Reply::TimedOut(timeout)
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.driver.stop();
        self.server.abort();
    }
}
