//! [`Tool`]: a tool as a value, for tools made at run time (from a config file, a database, a
//! plugin, another server). A registry holds both kinds as [`ToolInfo`](crate::tool::ToolInfo)s: a
//! `#[tool]`'s static definition and a `Tool` added with
//! [`Registry::add_tool`](crate::Registry::add_tool) differ only in how a call is invoked, and
//! go through the same call pipeline: the policy, the scopes its hints imply, confirmation, tasks,
//! layers, metrics, traces and the per-call log.

use std::future::Future;
use std::pin::Pin;

use rmcp::model::JsonObject;

use crate::context::CallContext;
use crate::{ToolError, tool::ToolDescription, tool::ToolOutput};

/// What a hand-written tool's call returns: its output, or an error whose message the client
/// reads.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send>>;

/// A tool: what it says of itself ([`describe`](Tool::describe): a [`ToolDescription`]), and
/// how a call runs ([`call`](Tool::call)). Object-safe: a registry holds `Arc<dyn Tool>`.
/// Its description is read once, when the tool is added to a registry; a tool that wraps
/// another changes the fields it changes (see [`ToolDescription`]).
///
/// The arguments reach `call` checked against its
/// [`input_schema`](ToolDescription::input_schema), compiled once when the tool is added (a
/// schema that does not compile is refused there; no remote `$ref` is fetched, `format` is
/// not checked): a call whose arguments do not match is answered, before anything else runs
/// for it (no confirmation is asked, `call` is not called), with an error naming every
/// wrong, missing or unknown argument in a `#[tool]`'s words. What the schema cannot say,
/// check in `call`, and answer with a [`ToolError`] that says what to send.
///
/// What a `#[tool]` takes as a context parameter ([`Progress`](crate::Progress),
/// [`ClientLog`](crate::context::ClientLog), [`Cancellation`](crate::context::Cancellation),
/// [`Caller`](crate::context::Caller), [`State`](crate::State), ...) comes from
/// [`CallContext::extract`].
///
/// ```
/// use toolsmith::{CallContext, Hints, JsonObject, Registry, Tool, ToolDescription, ToolError};
/// use toolsmith::tool::{ToolFuture, ToolOutput};
///
/// /// Counts the words of a text: read-only, the same answer every time, nothing outside.
/// struct WordCount;
///
/// impl Tool for WordCount {
///     fn describe(&self) -> ToolDescription {
///         let schema = serde_json::json!({
///             "type": "object",
///             "properties": {"text": {"type": "string"}},
///             "required": ["text"],
///         });
///         let hints = Hints { read_only: true, destructive: false, idempotent: true, open_world: false };
///         let schema = schema.as_object().cloned().unwrap();
///         ToolDescription::new("word_count", "Count the words of a text.", schema, hints)
///     }
///     fn call(&self, arguments: JsonObject, _context: &CallContext) -> ToolFuture {
///         Box::pin(async move {
///             let Some(text) = arguments.get("text").and_then(|t| t.as_str()) else {
///                 return Err(ToolError::new("give `text`, a string"));
///             };
///             Ok(ToolOutput::new().text(text.split_whitespace().count().to_string()))
///         })
///     }
/// }
///
/// let registry = Registry::new().with_tool(WordCount).unwrap();
/// let tool = registry.get("word_count").unwrap();
/// assert!(tool.hints().read_only);
/// assert_eq!(tool.input_schema()["required"][0], "text");
/// // Two tools with one name: an error naming both.
/// assert!(Registry::new().with_tool(WordCount).unwrap().with_tool(WordCount).is_err());
/// ```
pub trait Tool: Send + Sync + 'static {
    /// What it says of itself: name, description, schemas, hints, and the rest a `#[tool]`
    /// declares. Read once, when it is added to a registry.
    fn describe(&self) -> ToolDescription;

    /// Runs one call. The future must be `'static`: take from `self` (an `Arc` field) and
    /// from `context` what it needs first.
    fn call(&self, arguments: JsonObject, context: &CallContext) -> ToolFuture;
}
