//! What a tool is: the static definition `#[tool]` generates, its hints, how one call's
//! arguments are decoded (and which parameters come from the context, by type) and its return
//! value turned into an outcome, its schemas and the type checks behind the macro's errors,
//! and [`ToolInfo`], a registered tool with what is computed from it once. Nothing here knows
//! how tools are served.

pub(crate) mod args;
pub(crate) mod canonical;
pub(crate) mod checks;
pub(crate) mod confirm;
pub(crate) mod content;
pub(crate) mod def;
mod dynamic;
mod finite;
mod hints;
mod info;
mod names;
pub(crate) mod output;
pub(crate) mod param;
pub(crate) mod probe;
pub(crate) mod schema;
mod scopes;
pub(crate) mod strings;

pub use content::{Audio, Content, EmbeddedResource, Image, Linked, ResourceLink, ToolOutput};
pub use def::TaskSupport;
pub use dynamic::{Tool, ToolFuture};
pub use hints::{Hints, InferredHints, infer_hints};
pub use info::{META_CATEGORY, META_TAGS, ToolInfo};
pub(crate) use info::{SchemaCache, ToolName, ToolRef};
pub(crate) use names::{check_tool_name, intern_list, made_icons, made_timeout};
pub use scopes::{Required, ScopeNames};
