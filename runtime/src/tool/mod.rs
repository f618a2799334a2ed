//! Tools: the [`Tool`] trait (a tool made at run time) and the [`ToolDescription`] it gives,
//! [`ToolInfo`] (a registered tool of either kind: name, description, schemas, [`Hints`]),
//! what a tool returns ([`ToolOutput`], [`Content`] and its blocks), the [`ScopeNames`] its
//! hints require, and [`infer_hints`], the verb rules of the compile-time name lint.
//!
//! ```
//! use toolsmith::{Hints, Registry, tool::infer_hints};
//!
//! /// Purge a note for good.
//! #[toolsmith::tool(destructive, idempotent, closed_world)]
//! fn purge_note(id: u64) -> String {
//!     format!("deleted {id}")
//! }
//!
//! let tool = Registry::global().get("purge_note").unwrap();
//! assert_eq!(tool.hints(), Hints::DESTRUCTIVE.idempotent().closed_world());
//! assert!(infer_hints("purge_note").is_some_and(|inferred| inferred.destructive));
//! ```

// Inside: the static definition `#[tool]` generates, how one call's arguments are decoded
// (and which parameters come from the context, by type) and its return value turned into an
// outcome, its schemas and the type checks behind the macro's errors. Nothing here knows how
// tools are served.

pub(crate) mod args;
mod audience;
pub(crate) mod canonical;
pub(crate) mod checks;
pub(crate) mod confirm;
pub(crate) mod content;
pub(crate) mod def;
mod description;
mod dynamic;
mod finite;
mod hints;
mod info;
mod names;
pub(crate) mod output;
pub(crate) mod param;
pub(crate) mod place;
pub(crate) mod probe;
mod same;
pub(crate) mod schema;
mod scopes;
pub(crate) mod strings;
mod validate;

pub use audience::Audience;
pub use content::{Audio, Content, EmbeddedResource, Image, Linked, ResourceLink, ToolOutput};
pub use def::TaskSupport;
pub use description::ToolDescription;
pub use dynamic::{Tool, ToolFuture};
pub use hints::{Hints, InferredHints, infer_hints};
pub use info::{META_CATEGORY, META_CONFIRMS, META_TAGS, ToolInfo};
pub(crate) use info::{SchemaCache, ToolName, ToolRef};
pub(crate) use names::{check_tool_name, made_header, made_timeout};
/// A JSON object: a [`Tool`]'s arguments and its schemas (rmcp's `JsonObject`, re-exported
/// where `Tool` is, so a tool made by hand needs no `rmcp` path).
///
/// ```
/// let arguments: toolsmith::tool::JsonObject = serde_json::json!({"text": "hi"})
///     .as_object()
///     .cloned()
///     .unwrap();
/// let same: toolsmith::JsonObject = arguments.clone();
/// assert_eq!(same["text"], "hi");
/// ```
pub use rmcp::model::JsonObject;
pub use scopes::{RequiredScopes, ScopeNames};
