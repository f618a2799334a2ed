//! Every `#[tool]`, `#[resource]` and `#[prompt]` in the program, collected through
//! `inventory`: no list to keep (`items.rs` for resources and prompts). Searching
//! it by hints (`search.rs`, with cursors that any process of the build accepts and that
//! refuse tampering: `cursor.rs`) and the hints snapshot that CI checks
//! (`snapshot.rs`).

mod cursor;
mod items;
pub(crate) mod search;
pub(crate) mod snapshot;

pub use search::{DEFAULT_SEARCH_PAGE_SIZE, MAX_SEARCH_PAGE_SIZE, Page, Search, SearchError};

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::Error;
use crate::tool::def::ToolDef;
use crate::tool::{SchemaCache, ToolInfo};
use items::Items;

/// Every registered tool, sorted by name, with its schemas computed once.
///
/// ```
/// let registry = toolsmith::registry();
/// assert_eq!(registry.len(), registry.tools().len());
/// ```
pub struct Registry {
    tools: Vec<ToolInfo>,
    /// By name. A fixed-seed fast hash: the names are the program's own, lookups insert
    /// nothing, so there is no flooding to defend against.
    index: HashMap<&'static str, usize, foldhash::fast::FixedState>,
    /// Resources, templates and prompts.
    items: Items,
}

impl Registry {
    fn build(defs: impl IntoIterator<Item = &'static ToolDef>) -> Result<Registry, Conflict> {
        let mut defs: Vec<&'static ToolDef> = defs.into_iter().collect();
        defs.sort_by(|a, b| (a.name, a.file, a.line).cmp(&(b.name, b.file, b.line)));
        let mut schemas = SchemaCache::default();
        let tools: Vec<ToolInfo> = defs
            .into_iter()
            .map(|def| ToolInfo::new(def, &mut schemas))
            .collect();
        if let Some(pair) = tools.windows(2).find(|w| w[0].name() == w[1].name()) {
            return Err(Conflict {
                tool: Some(pair[0].name().to_owned()),
                what: format!("two tools are named '{}'", pair[0].name()),
                first: pair[0].described(),
                second: pair[1].described(),
                fix: "rename one with #[tool(name = \"...\")]",
            });
        }
        let items = Items::build()?;
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name(), i))
            .collect();
        Ok(Registry {
            tools,
            index,
            items,
        })
    }

    /// All tools, sorted by name.
    ///
    /// ```
    /// let tools = toolsmith::registry().tools();
    /// assert!(tools.windows(2).all(|w| w[0].name() < w[1].name()));
    /// ```
    pub fn tools(&self) -> &[ToolInfo] {
        &self.tools
    }

    /// The tool named `name`.
    ///
    /// ```
    /// assert!(toolsmith::registry().get("no such tool").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&ToolInfo> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// How many tools there are.
    ///
    /// ```
    /// let n = toolsmith::registry().len();
    /// # let _ = n;
    /// ```
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is registered.
    ///
    /// ```
    /// let none = toolsmith::registry().is_empty();
    /// # let _ = none;
    /// ```
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The package (name, version) that defines most tools: the server's identity by
    /// default.
    pub(crate) fn main_package(&self) -> Option<(&'static str, &'static str)> {
        let mut counts: HashMap<(&'static str, &'static str), usize> = HashMap::new();
        for tool in &self.tools {
            *counts
                .entry((tool.def().package, tool.def().version))
                .or_default() += 1;
        }
        counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(package, _)| package)
    }
}

/// Two definitions that cannot both be served: kept to make an error for each caller.
#[derive(Debug)]
pub(crate) struct Conflict {
    /// For two tools: their name (an [`Error::DuplicateTool`]).
    pub(crate) tool: Option<String>,
    pub(crate) what: String,
    pub(crate) first: String,
    pub(crate) second: String,
    pub(crate) fix: &'static str,
}

static REGISTRY: OnceLock<Result<Registry, Conflict>> = OnceLock::new();

/// The registry of every `#[tool]` linked into the program, built on first use.
///
/// # Panics
///
/// When two tools share a name; [`try_registry`] returns that as an error instead (and
/// [`serve_stdio`](crate::serve_stdio) stops startup with it).
///
/// ```
/// for tool in toolsmith::registry().tools() {
///     println!("{}: {}", tool.name(), tool.hints());
/// }
/// ```
pub fn registry() -> &'static Registry {
    try_registry().unwrap_or_else(|err| panic!("{err}"))
}

/// The registry of every `#[tool]`, `#[resource]` and `#[prompt]`, or the error that
/// prevents building it (two tools or prompts with one name, two resources with one URI, two
/// templates that can match one URI: each definition named by `file:line`).
///
/// ```
/// let registry = toolsmith::try_registry().expect("tool names are unique");
/// # let _ = registry;
/// ```
pub fn try_registry() -> Result<&'static Registry, Error> {
    match REGISTRY.get_or_init(|| Registry::build(inventory::iter::<ToolDef>)) {
        Ok(registry) => Ok(registry),
        Err(conflict) => Err(match &conflict.tool {
            Some(name) => Error::DuplicateTool {
                name: name.clone(),
                first: conflict.first.clone(),
                second: conflict.second.clone(),
            },
            None => Error::Conflict {
                what: conflict.what.clone(),
                first: conflict.first.clone(),
                second: conflict.second.clone(),
                fix: conflict.fix,
            },
        }),
    }
}
