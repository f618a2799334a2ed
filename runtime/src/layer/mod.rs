//! Layers around every request to a tool, a resource or a prompt:
//! [`Server::layer`](crate::Server::layer) takes a [`tower::Layer`] over the
//! [`CallService`], the rest of the pipeline. A layer sees each `tools/call`,
//! `resources/read` and `prompts/get` after it was resolved and its access checked ([`Call`]:
//! the method, the [`Item`], the caller, the arguments) and answers it ([`CallOutcome`]), by
//! passing it on or by refusing it ([`CallOutcome::refused`]). It runs on every way in alike (the stdio and HTTP fast paths,
//! rmcp's path), before the confirmation step. [`RateLimit`] and [`ConcurrencyLimit`] ship
//! with toolsmith (the latter is put in by the server itself, innermost, when a tool
//! declares `#[tool(max_concurrency = N)]`).
//!
//! ```
//! use std::convert::Infallible;
//! use std::task::{Context, Poll};
//! use toolsmith::layer::{Call, CallOutcome, CallService};
//!
//! /// Refuses every call of a destructive tool on Fridays (today is one).
//! #[derive(Clone)]
//! struct NoDeploysOnFriday<S>(S);
//!
//! use toolsmith::layer::tower;
//!
//! impl<S> tower::Service<Call> for NoDeploysOnFriday<S>
//! where
//!     S: tower::Service<Call, Response = CallOutcome, Error = Infallible>,
//!     S::Future: Send + 'static,
//! {
//!     type Response = CallOutcome;
//!     type Error = Infallible;
//!     type Future = std::pin::Pin<
//!         Box<dyn std::future::Future<Output = Result<CallOutcome, Infallible>> + Send>,
//!     >;
//!
//!     fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
//!         self.0.poll_ready(cx)
//!     }
//!
//!     fn call(&mut self, call: Call) -> Self::Future {
//!         if call.tool().is_some_and(|tool| tool.hints().destructive) {
//!             let refused = CallOutcome::refused("No destructive calls on Fridays.");
//!             return Box::pin(std::future::ready(Ok(refused)));
//!         }
//!         Box::pin(self.0.call(call))
//!     }
//! }
//!
//! /// Deploys the release.
//! #[toolsmith::tool(destructive, closed_world)]
//! fn deploy_friday_release() -> String {
//!     "deployed".into()
//! }
//!
//! /// Reads the release notes.
//! #[toolsmith::tool(read_only, closed_world)]
//! fn read_friday_notes() -> String {
//!     "notes".into()
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let tools = toolsmith::Registry::from_module(module_path!()).unwrap();
//! let server = toolsmith::Server::with_registry(tools)
//!     .layer(tower::layer::layer_fn(NoDeploysOnFriday));
//! let client = toolsmith::testing::Client::connect(server).await.unwrap();
//! let refused = client.call("deploy_friday_release", serde_json::json!({})).await.unwrap_err();
//! assert_eq!(refused.message(), "No destructive calls on Fridays.");
//! assert_eq!(client.call("read_friday_notes", serde_json::json!({})).await.unwrap().text(), "notes");
//! # }
//! ```

mod concurrency;
mod rate;

use std::convert::Infallible;

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CallToolResult, GetPromptResult, ReadResourceResult};

pub use concurrency::{ConcurrencyLimit, Concurrent};
pub use rate::{Limited, RateLimit, Rates, UnknownRates};

/// The tower crate toolsmith's layers are built on (0.5), for writing your own without
/// depending on the same version by hand.
///
/// ```
/// use toolsmith::layer::{CallService, ConcurrencyLimit, RateLimit, tower::Layer};
///
/// /// Whether `Server::layer` takes `layer`: a layer of this tower around the rest of the
/// /// pipeline (checked as it compiles).
/// fn wraps_calls<L: Layer<CallService>>(_layer: &L) -> bool {
///     true
/// }
///
/// assert!(wraps_calls(&RateLimit::new(Default::default())));
/// assert!(wraps_calls(&ConcurrencyLimit::new()));
/// ```
pub use tower;

pub use crate::request::{Call, Item};
use crate::{error::ErrorKind, error::META_ERROR};

/// The rest of the pipeline, as a layer wraps it.
pub type CallService = tower::util::BoxCloneSyncService<Call, CallOutcome, Infallible>;

/// How a call ended, as a layer sees it (and may answer it itself): a tool's result, a
/// read's contents, a prompt's messages, or the protocol error any of them ended with.
#[derive(Debug, Clone)]
pub struct CallOutcome(pub(crate) Reply);

/// What a [`CallOutcome`] holds: the answer of its kind of request.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// A tool's answer, or a layer's refusal of any request (the pipeline turns it into the
    /// protocol error of a read or a prompt).
    Tool(Result<CallToolResponse, ErrorData>),
    Read(Result<ReadResourceResult, ErrorData>),
    Prompt(Result<GetPromptResult, ErrorData>),
}

impl CallOutcome {
    /// A refusal: the request does not run. A tool call gets an error result of kind
    /// [`ErrorKind::Refused`] with `message`; a read or a prompt, the protocol error whose
    /// data names that kind, with `message`.
    ///
    /// ```
    /// let refused = toolsmith::layer::CallOutcome::refused("Not now.");
    /// assert_eq!(refused.error_kind(), Some(toolsmith::error::ErrorKind::Refused));
    /// ```
    pub fn refused(message: impl Into<String>) -> Self {
        let result = crate::error::error_result(ErrorKind::Refused, message.into());
        CallOutcome(Reply::Tool(Ok(CallToolResponse::Complete(result))))
    }

    /// The tool's result, when a tool call completed (not a protocol error, not a question,
    /// not a read or a prompt).
    ///
    /// ```
    /// let refused = toolsmith::layer::CallOutcome::refused("Not now.");
    /// assert_eq!(refused.result().unwrap().is_error, Some(true));
    /// ```
    pub fn result(&self) -> Option<&CallToolResult> {
        match &self.0 {
            Reply::Tool(Ok(CallToolResponse::Complete(result))) => Some(result),
            _ => None,
        }
    }

    /// The kind of error it ended with: an error result's, or a protocol error's that names
    /// one (a read or a prompt that failed, timed out or was refused).
    ///
    /// ```
    /// assert!(toolsmith::layer::CallOutcome::refused("x").error_kind().is_some());
    /// ```
    pub fn error_kind(&self) -> Option<ErrorKind> {
        let error = match &self.0 {
            Reply::Tool(Ok(_)) => {
                let result = self.result()?;
                if result.is_error != Some(true) {
                    return None;
                }
                let kind = result.meta.as_ref()?.get(META_ERROR)?.as_str()?;
                return ErrorKind::parse(kind);
            }
            Reply::Read(Ok(_)) | Reply::Prompt(Ok(_)) => return None,
            Reply::Tool(Err(error)) | Reply::Read(Err(error)) | Reply::Prompt(Err(error)) => error,
        };
        let kind = error.data.as_ref()?.get(META_ERROR)?.as_str()?;
        ErrorKind::parse(kind)
    }
}
