//! Testing your tools: an in-process client (feature `testing`).
//!
//! [`Client::connect`] serves a [`Server`] in-process, over the same line framing as stdio,
//! and speaks MCP to it: calls come back as typed outcomes, with the call's own
//! notifications, and every way a call can fail is a [`CallError`] you can match.
//!
//! ```standalone_crate
//! use toolsmith::testing::{CallError, Client};
//! use toolsmith::{ErrorKind, ToolError, tool};
//!
//! /// Get a note by id.
//! #[tool(read_only, closed_world)]
//! fn get_note(note_id: u64) -> Result<String, ToolError> {
//!     Err(ToolError::new(format!("No note with id {note_id}.")))
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let client = Client::connect(toolsmith::Server::new()).await.unwrap();
//! let err = client.call("get_note", serde_json::json!({"note_id": 99})).await.unwrap_err();
//! assert!(matches!(err, CallError::Tool { kind: ErrorKind::Tool, .. }));
//! assert_eq!(err.message(), "No note with id 99.");
//! # }
//! ```
//!
//! Calls on one client run one at a time, so that the notifications each outcome holds are
//! that call's alone; connect a second client for calls at the same time. Dropping the client
//! ends its server.

mod answers;
mod asked;
mod driver;
mod error;
mod items;
mod listed;
mod options;
mod outcome;
mod requests;
mod store;
mod tasks;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientCapabilities, ClientNotification, ClientRequest, Implementation, InitializeRequest,
    InitializeRequestParams, InitializedNotification, ListToolsRequest, PaginatedRequestParams,
    ProtocolVersion, RequestId, RequestMetaObject, ServerResult, Tool,
};
use serde_json::Value;
use tokio::task::JoinHandle;

pub use answers::{Complete, Completions, PromptOutcome, ReadOutcome};
pub use asked::{Answer, Confirmation, Form};
pub use error::CallError;
pub use listed::ListedTool;
pub use options::CallOptions;
pub use outcome::{CallOutcome, DataError};
pub use requests::{Answerer, decline};
pub use store::check_task_store;
pub use tasks::TaskState;

use crate::{Error, Server};
use driver::{Driver, Reply};

/// An MCP client connected in-process to a [`Server`].
///
/// ```standalone_crate
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
/// let tools = client.list_tools().await.unwrap();
/// # let _ = tools;
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
    scope_names: crate::ScopeNames,
    registry: crate::RegistryHandle,
    /// The tool of each task this client started, by id.
    tasks: std::sync::Mutex<HashMap<String, String>>,
    /// The server's `instructions`, as `initialize` gave them.
    instructions: Option<String>,
    server: JoinHandle<()>,
}

impl Client {
    /// Serves `server` in-process and connects to it: `initialize` at 2025-11-25, then the
    /// tools are listed once.
    ///
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await;
    /// assert!(client.is_ok());
    /// # }
    /// ```
    ///
    /// Unlike serving, connecting does not need every tool's [`State<T>`](crate::State): a
    /// test of one tool need not register the state of another. Calling a tool whose state
    /// `server` lacks is an error that names the type and says to register it:
    ///
    /// ```standalone_crate
    /// use toolsmith::{State, tool};
    ///
    /// struct Database;
    ///
    /// /// Count the rows.
    /// #[tool(read_only)]
    /// fn count_rows(db: State<Database>) -> u64 {
    ///     let _ = &*db;
    ///     0
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// let err = client.call("count_rows", serde_json::json!({})).await.unwrap_err();
    /// assert!(err.message().contains("State<"), "{err}");
    /// assert!(err.message().contains(".state(value)"), "{err}");
    ///
    /// let server = toolsmith::Server::new().state(Database);
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// assert!(client.call("count_rows", serde_json::json!({})).await.is_ok());
    /// # }
    /// ```
    pub async fn connect(server: Server) -> Result<Client, Error> {
        Self::connect_answering(server, requests::declining()).await
    }

    /// Like [`connect`](Self::connect), answering the requests the server sends during a
    /// call (an elicitation, sampling, roots) with `answerer` instead of [`decline`]. The
    /// client declares elicitation (form), sampling and roots.
    ///
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use std::sync::Arc;
    /// let answerer: toolsmith::testing::Answerer = Arc::new(toolsmith::testing::decline);
    /// let client = toolsmith::testing::Client::connect_answering(toolsmith::Server::new(), answerer).await;
    /// assert!(client.is_ok());
    /// # }
    /// ```
    pub async fn connect_answering(server: Server, answerer: Answerer) -> Result<Client, Error> {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_end);
        // Checked here, so that a registry that cannot be built is an error of `connect`. A
        // tool whose `State<T>` this server lacks is no reason to refuse: the test may be
        // about other tools, and a call of that tool is answered with an error naming it.
        let registry = server.served()?;
        let scope_names = server.scope_names.clone();
        let server = tokio::spawn(async move {
            if let Err(err) = server.serve_on_unchecked(read, write).await {
                tracing::warn!(%err, "the test server stopped");
            }
        });
        let mut client = Client {
            driver: Driver::start(client_end, answerer),
            turn: tokio::sync::Mutex::new(()),
            next_id: AtomicI64::new(0),
            wrapped: HashMap::new(),
            scope_names,
            registry,
            tasks: std::sync::Mutex::default(),
            instructions: None,
            server,
        };
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(Default::default());
        capabilities.sampling = Some(Default::default());
        capabilities.roots = Some(Default::default());
        let params = InitializeRequestParams::new(
            capabilities,
            Implementation::new("toolsmith-testing", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
        let init = ClientRequest::InitializeRequest(InitializeRequest::new(params));
        match client.request(init, None).await {
            Reply::Result(result) if matches!(*result, ServerResult::InitializeResult(_)) => {
                if let ServerResult::InitializeResult(init) = *result {
                    client.instructions = init.instructions;
                }
            }
            other => {
                return Err(Error::Protocol {
                    request: "initialize",
                    answer: format!("{other:?}"),
                });
            }
        }
        client
            .driver
            .notify(ClientNotification::InitializedNotification(
                InitializedNotification::default(),
            ));
        let tools = client.list_tools().await?;
        client.wrapped = tools
            .iter()
            .map(|tool| {
                let wrapped = tool.output_schema.as_ref().is_some_and(|schema| {
                    schema.contains_key(crate::tool::schema::WRAP_RESULT_KEY)
                });
                (tool.name.to_string(), wrapped)
            })
            .collect();
        Ok(client)
    }

    /// Every tool the server offers, following pagination.
    ///
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// for tool in client.list_tools().await.unwrap() {
    ///     println!("{}: {:?}", tool.name, tool.annotations);
    /// }
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
    /// ```standalone_crate
    /// use toolsmith::{Hints, tool};
    ///
    /// /// Delete a note.
    /// #[tool(destructive, idempotent, closed_world, title = "Delete note")]
    /// fn delete_note(note_id: u64) -> bool {
    ///     note_id > 0
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// let tools = client.tools().await.unwrap();
    /// let delete = tools.iter().find(|t| t.name == "delete_note").unwrap();
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
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
    /// let err = client.call("no_such_tool", serde_json::json!({})).await.unwrap_err();
    /// assert!(matches!(err, toolsmith::testing::CallError::Protocol { code: -32602, .. }));
    /// # }
    /// ```
    pub async fn call(&self, name: &str, args: Value) -> Result<CallOutcome, CallError> {
        self.call_with(name, args, CallOptions::default()).await
    }

    /// Like [`call`](Self::call), with a timeout or a progress token.
    ///
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
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
    /// ```standalone_crate
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let client = toolsmith::testing::Client::connect(toolsmith::Server::new()).await.unwrap();
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
