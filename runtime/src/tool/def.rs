//! What `#[tool]` generates: a static [`ToolDef`] per tool, registered through `inventory`.
//! Not a public API (reached through `__private`).

use crate::Hints;
use crate::context::{CallContext, StateKey};
use crate::item::ItemDef;
use crate::tool::args::Arguments;
pub(crate) use crate::tool::param::states_of;
pub use crate::tool::param::{Invocation, ParamDef, ParamKind, Timeout};
use crate::tool::schema::OutputSchema;

/// One tool as `#[tool]` declares it: a static value registered through `inventory`.
#[doc(hidden)]
pub struct ToolDef {
    /// What every item has: name, title, description, icons, scopes (empty when the hints
    /// decide), where it is declared.
    pub item: ItemDef,
    pub package: &'static str,
    pub version: &'static str,
    /// What Cargo says of that package besides its name and version (a bundle's manifest).
    pub about: PackageAbout,
    pub category: Option<&'static str>,
    pub tags: &'static [&'static str],
    pub hints: Hints,
    /// Every parameter, in order: arguments and context parameters alike.
    pub params: &'static [ParamDef],
    /// `json_schema = "2020-12"`: the input schema names its dialect and keeps `$defs`.
    pub json_schema: bool,
    /// `max_concurrency = N`: at most N calls of the tool run at once; more wait.
    pub max_concurrency: Option<u32>,
    pub timeout: Option<Timeout>,
    /// `blocking`: its calls run on a thread of the pool from the first.
    pub blocking: bool,
    /// `confirm`: the user is asked before every call.
    pub confirm: ConfirmDef,
    /// `task` / `task = "required"`: whether a call may, or must, run as a task.
    pub task: TaskSupport,
    pub output: OutputDef,
    pub invoke: for<'a> fn(Arguments<'a>, &CallContext) -> Invocation,
}

/// Whether a tool's calls run as tasks (`#[tool(task)]`, `#[tool(task = "required")]`): a
/// client that declared the tasks extension gets a task's handle at once, and polls it.
///
/// ```
/// use toolsmith::tool::TaskSupport;
///
/// /// Rebuild the search index: long, so a client may poll it.
/// #[toolsmith::tool(task, destructive = false, idempotent, closed_world)]
/// async fn rebuild_search_index() -> String {
///     "rebuilt".into()
/// }
///
/// /// Reindex one note: quick.
/// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
/// fn reindex_one_note(note_id: u64) -> u64 {
///     note_id
/// }
///
/// let tools = toolsmith::Registry::global();
/// assert_eq!(tools.get("rebuild_search_index").unwrap().task(), TaskSupport::Optional);
/// assert_eq!(tools.get("reindex_one_note").unwrap().task(), TaskSupport::Never);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// An ordinary call, whatever the client declared (no `task` in the attribute).
    Never,
    /// `task`: a task for a client that declared the tasks extension, an ordinary call
    /// under its timeout for any other.
    Optional,
    /// `task = "required"`: a task; a client without the tasks extension is refused.
    Required,
}

impl TaskSupport {
    /// As the `tools` matrix and the `check` snapshot write it: `-`, `optional`, `required`.
    ///
    /// ```
    /// assert_eq!(toolsmith::tool::TaskSupport::Required.as_str(), "required");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Never => "-",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// A tool's `confirm` / `confirm = "..."`.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct ConfirmDef {
    /// The tool asks before every call, whatever the server's policy.
    pub asks: bool,
    /// The message, with `{argument}` placeholders (checked by the macro); the default names
    /// the tool and its arguments.
    pub message: Option<&'static str>,
    /// The function `confirm_with = path` names, called with the tool's own parameters: its
    /// question, or `None` when they cannot be made (the message or the default then).
    pub question: Option<QuestionFn>,
}

/// How `#[tool(confirm_with = path)]` makes a call's question: the call's arguments and
/// context in, the question out (`None`: the parameters could not be made).
pub type QuestionFn = fn(Arguments<'_>, &CallContext) -> Option<String>;

inventory::collect!(ToolDef);

impl ToolDef {
    /// Whether a parameter asks the client during the call ([`Elicit`](crate::context::Elicit),
    /// [`Sample`](crate::context::Sample)).
    pub(crate) fn asks(&self) -> bool {
        self.params
            .iter()
            .any(|param| matches!((param.kind)(), ParamKind::Context { asks: true, .. }))
    }

    /// Whether a parameter stops a run ([`Cancellation`](crate::context::Cancellation)).
    pub(crate) fn cancellable(&self) -> bool {
        self.params
            .iter()
            .any(|param| matches!((param.kind)(), ParamKind::Context { cancels: true, .. }))
    }

    /// The registered state its `State<T>` parameters need, checked when the server starts.
    pub fn states(&self) -> impl Iterator<Item = StateKey> + '_ {
        states_of(self.params)
    }
}

/// What Cargo says of the package that declares a tool (`CARGO_PKG_…` as it was built),
/// each `None` where the package's manifest leaves it out: `bundle` writes it into a
/// bundle's manifest.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PackageAbout {
    pub description: Option<&'static str>,
    /// `authors`, separated by `:` as Cargo joins them.
    pub authors: Option<&'static str>,
    pub repository: Option<&'static str>,
    pub homepage: Option<&'static str>,
    pub license: Option<&'static str>,
}

/// What a tool returns.
#[doc(hidden)]
pub enum OutputDef {
    /// `()`.
    Empty,
    /// `String`: plain text, no output schema.
    Text,
    /// A structured value with this schema.
    Json(fn() -> OutputSchema),
    /// Content blocks (`Image`, `Vec<Content>`, `ToolOutput`, ...): no output schema.
    Content,
}
