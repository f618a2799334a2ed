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

mod driver;
mod error;
mod outcome;

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientCapabilities, ClientNotification, ClientRequest, Implementation, InitializeRequest,
    InitializeRequestParams, InitializedNotification, ListToolsRequest, NumberOrString,
    PaginatedRequestParams, ProgressToken, ProtocolVersion, RequestId, RequestMetaObject,
    ServerResult, Tool,
};
use serde_json::Value;
use tokio::task::JoinHandle;

pub use error::CallError;
pub use outcome::{CallOutcome, DataError};

use crate::{Error, Server};
use driver::{Answer, Driver};

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
    server: JoinHandle<()>,
}

/// Per-call options for [`Client::call_with`].
///
/// ```
/// use std::time::Duration;
/// let options = toolsmith::testing::CallOptions::default()
///     .timeout(Duration::from_secs(5))
///     .progress_token("import-1");
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    timeout: Option<Duration>,
    progress: Option<ProgressToken>,
}

impl CallOptions {
    /// Gives up on the call after `timeout` (the client cancels it and gets
    /// [`CallError::Timeout`]).
    ///
    /// ```
    /// let options = toolsmith::testing::CallOptions::default().timeout(std::time::Duration::from_millis(50));
    /// # let _ = options;
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Asks for progress notifications under `token` (see [`CallOutcome::progress`]).
    ///
    /// ```
    /// let options = toolsmith::testing::CallOptions::default().progress_token(7);
    /// # let _ = options;
    /// ```
    pub fn progress_token(mut self, token: impl Into<Value>) -> Self {
        let token = match token.into() {
            Value::Number(n) if n.is_i64() => NumberOrString::Number(n.as_i64().unwrap_or(0)),
            Value::String(s) => NumberOrString::String(s.into()),
            other => NumberOrString::String(other.to_string().into()),
        };
        self.progress = Some(ProgressToken(token));
        self
    }
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
    pub async fn connect(server: Server) -> Result<Client, Error> {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_end);
        // Checked here, so that a server that cannot start is an error of `connect`.
        server.checked_registry()?;
        let server = tokio::spawn(async move {
            if let Err(err) = server.serve_on(read, write).await {
                tracing::warn!(%err, "the test server stopped");
            }
        });
        let mut client = Client {
            driver: Driver::start(client_end),
            turn: tokio::sync::Mutex::new(()),
            next_id: AtomicI64::new(0),
            wrapped: HashMap::new(),
            server,
        };
        let params = InitializeRequestParams::new(
            ClientCapabilities::default(),
            Implementation::new("toolsmith-testing", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
        let init = ClientRequest::InitializeRequest(InitializeRequest::new(params));
        match client.request(init, None).await {
            Answer::Result(result) if matches!(*result, ServerResult::InitializeResult(_)) => {}
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
                Answer::Result(result) => match *result {
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
            Answer::Result(result) => match *result {
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
            Answer::Error(error) => Err(CallError::Protocol {
                code: error.code.0,
                message: error.message.into_owned(),
            }),
            Answer::TimedOut(after) => Err(CallError::Timeout {
                tool: name.to_owned(),
                after,
            }),
            Answer::Closed => Err(CallError::Closed {
                tool: name.to_owned(),
            }),
        }
    }

    /// Sends `request` and waits for its answer, at most `timeout` (then cancels it).
    async fn request(&self, request: ClientRequest, timeout: Option<Duration>) -> Answer {
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
                Answer::TimedOut(timeout)
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
