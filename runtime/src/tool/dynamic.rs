//! [`Tool`]: a tool as a value, for tools made at run time (from a config file, a database, a
//! plugin, another server). A registry holds both kinds as [`ToolInfo`](crate::tool::ToolInfo)s: a
//! `#[tool]`'s static definition and a `Tool` added with
//! [`Registry::add_tool`](crate::Registry::add_tool) differ only in how a call is invoked, and
//! go through the same call pipeline: the policy, the scopes its hints imply, confirmation, tasks,
//! layers, metrics, traces and the per-call log.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use rmcp::model::JsonObject;

use crate::context::CallContext;
use crate::tool::def::TaskSupport;
use crate::{Hints, ToolError, tool::ToolOutput};

/// What a hand-written tool's call returns: its output, or an error whose message the client
/// reads.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send>>;

/// A tool: what a client reads about it, and how a call runs. Object-safe: a registry holds
/// `Arc<dyn Tool>`.
///
/// Only [`name`](Tool::name), [`description`](Tool::description),
/// [`input_schema`](Tool::input_schema), [`hints`](Tool::hints) and [`call`](Tool::call) must
/// be written; the rest have the defaults of a `#[tool]` without the key. Everything but
/// `call` is read once, when the tool is added to a registry.
///
/// The arguments reach `call` checked against [`input_schema`](Tool::input_schema), compiled
/// once when the tool is added (a schema that does not compile is refused there; no remote
/// `$ref` is fetched, `format` is not checked): a call whose arguments do not match is
/// answered, before anything else runs for it (no confirmation is asked, `call` is not
/// called), with an error naming every wrong, missing or unknown argument in a `#[tool]`'s
/// words. What the schema cannot say, check in `call`, and answer with a [`ToolError`] that
/// says what to send.
///
/// What a `#[tool]` takes as a context parameter ([`Progress`](crate::Progress),
/// [`ClientLog`](crate::context::ClientLog), [`Cancellation`](crate::context::Cancellation),
/// [`Caller`](crate::context::Caller), [`State`](crate::State), ...) comes from
/// [`CallContext::extract`].
///
/// ```
/// use std::sync::Arc;
/// use toolsmith::rmcp::model::JsonObject;
/// use toolsmith::{CallContext, Hints, Registry, Tool, ToolError, tool::ToolFuture, tool::ToolOutput};
///
/// /// Counts the words of a text: read-only, the same answer every time, nothing outside.
/// struct WordCount;
///
/// impl Tool for WordCount {
///     fn name(&self) -> &str { "word_count" }
///     fn description(&self) -> &str { "Count the words of a text." }
///     fn input_schema(&self) -> JsonObject {
///         serde_json::json!({
///             "type": "object",
///             "properties": {"text": {"type": "string"}},
///             "required": ["text"],
///         })
///         .as_object()
///         .cloned()
///         .unwrap()
///     }
///     fn hints(&self) -> Hints {
///         Hints { read_only: true, destructive: false, idempotent: true, open_world: false }
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
    /// The MCP tool name: what a client calls it by. 1 to 128 characters of `A-Z a-z 0-9 _ -
    /// .` (checked when it is added).
    fn name(&self) -> &str;

    /// What the model reads to decide whether to call it.
    fn description(&self) -> &str;

    /// The JSON Schema of its arguments: an object schema (`"type": "object"`).
    fn input_schema(&self) -> JsonObject;

    /// Its four behaviour hints. They decide the scope a caller needs, whether the user
    /// confirms a call under [`Confirm::Destructive`](crate::server::Confirm::Destructive), and
    /// whether the read-only and closed-world modes offer it: say what it does. A tool both
    /// read-only and destructive is refused when it is added, as `#[tool]` refuses it.
    fn hints(&self) -> Hints;

    /// Runs one call. The future must be `'static`: take from `self` (an `Arc` field) and
    /// from `context` what it needs first.
    fn call(&self, arguments: JsonObject, context: &CallContext) -> ToolFuture;

    /// A human-readable title.
    fn title(&self) -> Option<&str> {
        None
    }

    /// The JSON Schema of its structured result, when it returns one.
    fn output_schema(&self) -> Option<JsonObject> {
        None
    }

    /// Icons: `https:` or `data:` URIs (others are left out when it is added).
    fn icons(&self) -> Vec<String> {
        Vec::new()
    }

    /// A category, for [`Search`](crate::registry::Search) and the policy.
    fn category(&self) -> Option<&str> {
        None
    }

    /// Tags, for [`Search`](crate::registry::Search) and the policy.
    fn tags(&self) -> Vec<String> {
        Vec::new()
    }

    /// The OAuth scopes a caller needs, all of them; empty (the default): the scope its hints
    /// imply. Each distinct list is kept for the life of the process: give scopes of your
    /// configuration, never ones read from a request or another server.
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether the user is asked before every call, whatever the server's
    /// [`Confirm`](crate::server::Confirm) policy.
    fn confirms(&self) -> bool {
        false
    }

    /// The confirmation's question, with `{argument}` placeholders (`{{` and `}}` are
    /// braces); `None`: a sentence naming the tool and its arguments.
    fn confirm_message(&self) -> Option<String> {
        None
    }

    /// Whether the server its calls are sent on to asks the user before every one of them
    /// itself (a gateway's upstream that confirms its own calls): the server's
    /// [`Confirm`](crate::server::Confirm) policy then does not ask a second time (a tool
    /// that [`confirms`](Tool::confirms) still does), and its listing says it is confirmed.
    /// By default, no.
    fn upstream_confirms(&self) -> bool {
        false
    }

    /// Whether its calls may, or must, run as tasks.
    fn task(&self) -> TaskSupport {
        TaskSupport::Never
    }

    /// How long a call may run; `None`: no limit.
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// At most this many of its calls run at once (more wait).
    fn max_concurrency(&self) -> Option<u32> {
        None
    }

    /// Whether it asks its client during a call ([`Elicit`](crate::context::Elicit) or
    /// [`Sample`](crate::context::Sample) taken from its context): on 2026-07-28 its calls then carry
    /// the questions of earlier rounds and their answers. By default, no.
    fn asks_client(&self) -> bool {
        false
    }

    /// Where it comes from, for messages (two tools with one name name both): by default
    /// its Rust type.
    fn origin(&self) -> String {
        std::any::type_name::<Self>().to_owned()
    }
}
