//! The tools, resources and prompts a server offers: the [`Registry`] (every `#[tool]`,
//! `#[resource]` and `#[prompt]` linked in, through `inventory`: no list to keep; or one made as
//! a value, [`RegistryHandle`] to change it while serving), and finding tools by hints,
//! category, tags and text, one [`Page`] at a time ([`Search`]).

// Inside: `resource_prompt_index.rs` for resources and prompts (`prompts.rs`: a registry's
// prompts); `search.rs`, with cursors that any process of the build accepts and that refuse
// tampering (`cursor.rs`); the hints snapshot that CI checks (`snapshot.rs`).

mod conflict;
mod cursor;
mod live;
mod program;
mod prompts;
mod resource_prompt_index;
pub(crate) mod search;
pub(crate) mod snapshot;

pub(crate) use conflict::Conflict;
pub(crate) use live::Listener;
pub use live::RegistryHandle;
pub use search::{Page, Search, SearchError};

/// The fields of a tool's line in a hint snapshot that a pin holds it to
/// ([`Registry::drift`]): its hints, schemas, description and title, and whether its upstream
/// says it asks the user itself. (Its confirmation and scopes are the serving policy's.)
///
/// ```
/// assert!(toolsmith::registry::PINNED_FIELDS.contains(&"description"));
/// assert!(!toolsmith::registry::PINNED_FIELDS.contains(&"scopes"));
/// ```
pub const PINNED_FIELDS: [&str; 9] = snapshot::compare::PINNED;

use std::collections::HashMap;
use std::sync::Arc;

use crate::Error;
use crate::prompt::PromptInfo;
use crate::prompt::def::PromptDef;
use crate::resource::ResourceInfo;
use crate::resource::def::ResourceDef;
use crate::tool::def::ToolDef;
use crate::tool::{SchemaCache, Tool, ToolInfo, ToolName, ToolRef};
use resource_prompt_index::ResourcePromptIndex;

/// A set of tools, resources and prompts, sorted by name (resources by URI), with their
/// schemas computed once: what a [`Server`](crate::Server) serves.
///
/// [`Registry::from_inventory`] holds every `#[tool]`, `#[resource]` and `#[prompt]` linked
/// into the program (what [`Server::new`](crate::Server::new) serves); [`Registry::new`] is
/// empty. Both take tools made by hand ([`Tool`]), merge with others, and search by hints.
///
/// ```
/// let registry = toolsmith::Registry::global();
/// assert_eq!(registry.len(), registry.tools().len());
/// let empty = toolsmith::Registry::new();
/// assert!(empty.is_empty() && empty.get("anything").is_none());
/// ```
#[derive(Clone, Default)]
pub struct Registry {
    /// As calls hold them (a `#[tool]` of the program without counting references).
    held: Vec<ToolRef>,
    /// The same, as [`Registry::tools`] gives them.
    tools: Vec<Arc<ToolInfo>>,
    /// By name. A fixed-seed fast hash: lookups insert nothing, and a name is inserted only
    /// by the program (a `#[tool]`, or a `Tool` it adds).
    index: HashMap<ToolName, ToolRef, foldhash::fast::FixedState>,
    /// Resources, templates and prompts.
    resources_and_prompts: ResourcePromptIndex,
    /// The wrapping sum of the tools' fingerprints, of which list cursors' is made
    /// (`cursor.rs`): kept up to date by adding or removing a tool without the others, so
    /// that adding N tools one by one costs O(N log N), not O(N²).
    fingerprints: u64,
}

impl Registry {
    /// An empty registry.
    ///
    /// ```
    /// assert!(toolsmith::Registry::new().tools().is_empty());
    /// ```
    pub fn new() -> Registry {
        Registry::default().reindexed()
    }

    /// Every `#[tool]`, `#[resource]` and `#[prompt]` linked into the program (a copy of
    /// [`Registry::global`]'s, to add to or take from), or the error that prevents building it.
    ///
    /// ```
    /// let mine = toolsmith::Registry::from_inventory().unwrap();
    /// assert_eq!(mine.len(), toolsmith::Registry::global().len());
    /// ```
    pub fn from_inventory() -> Result<Registry, Error> {
        Registry::try_global().cloned()
    }

    /// Every `#[tool]`, `#[resource]` and `#[prompt]` declared in the module `path` (as
    /// `module_path!()` writes it) or in a module inside it: a server of one part of the
    /// program, two servers with different tools in one process. Names must be distinct
    /// within the part only; an error names both definitions when they are not. A path in
    /// which nothing is declared (a misspelled module, most often) is an error naming the
    /// modules that do declare something; for an empty registry, use [`Registry::new`].
    ///
    /// ```
    /// mod admin {
    ///     /// Clears the cache.
    ///     #[toolsmith::tool(destructive, idempotent, closed_world)]
    ///     pub fn clear_cache() -> String { "cleared".into() }
    /// }
    /// mod public {
    ///     /// Answers pong.
    ///     #[toolsmith::tool(read_only, closed_world)]
    ///     pub fn ping() -> String { "pong".into() }
    /// }
    ///
    /// let here = module_path!();
    /// let admin = toolsmith::Registry::from_module(&format!("{here}::admin")).unwrap();
    /// let names: Vec<&str> = admin.tools().iter().map(|t| t.name()).collect();
    /// assert_eq!(names, ["clear_cache"]);
    /// assert_eq!(toolsmith::Registry::from_module(here).unwrap().len(), 2);
    /// let typo = toolsmith::Registry::from_module(&format!("{here}::admn")).err().unwrap();
    /// assert!(typo.to_string().contains("nothing is declared in"), "{typo}");
    /// assert!(typo.to_string().contains("::admin"), "{typo}");
    /// ```
    pub fn from_module(path: &str) -> Result<Registry, Error> {
        let inside = |rust_path: &str| {
            rust_path
                .strip_prefix(path)
                .is_some_and(|rest| rest.starts_with("::"))
        };
        let paths = || {
            let tools = inventory::iter::<ToolDef>().map(|def| def.item.rust_path);
            let resources = inventory::iter::<ResourceDef>().map(|def| def.item.rust_path);
            let prompts = inventory::iter::<PromptDef>().map(|def| def.item.rust_path);
            tools.chain(resources).chain(prompts)
        };
        if !paths().any(inside) {
            return Err(nothing_declared_in(path, paths()));
        }
        Registry::build(
            inventory::iter::<ToolDef>().filter(|def| inside(def.item.rust_path)),
            ResourcePromptIndex::of(
                inventory::iter::<ResourceDef>().filter(|def| inside(def.item.rust_path)),
                inventory::iter::<PromptDef>().filter(|def| inside(def.item.rust_path)),
            ),
            ToolRef::shared,
        )
        .map_err(Conflict::into_error)
    }

    /// The registry of `defs` and `resources_and_prompts`; `hold` makes each tool as calls
    /// hold it.
    fn build(
        defs: impl IntoIterator<Item = &'static ToolDef>,
        resources_and_prompts: Result<ResourcePromptIndex, Conflict>,
        hold: fn(Arc<ToolInfo>) -> ToolRef,
    ) -> Result<Registry, Conflict> {
        let mut defs: Vec<&'static ToolDef> = defs.into_iter().collect();
        defs.sort_by(|a, b| {
            (a.item.name, a.item.file, a.item.line).cmp(&(b.item.name, b.item.file, b.item.line))
        });
        let mut schemas = SchemaCache::default();
        let held: Vec<ToolRef> = defs
            .into_iter()
            .map(|def| hold(Arc::new(ToolInfo::new(def, &mut schemas))))
            .collect();
        if let Some(pair) = held.windows(2).find(|w| w[0].name() == w[1].name()) {
            return Err(Conflict {
                tool: Some(pair[0].name().to_owned()),
                what: format!("two tools are named '{}'", pair[0].name()),
                first: pair[0].described(),
                second: pair[1].described(),
                fix: "rename one with #[tool(name = \"...\")]",
            });
        }
        let resources_and_prompts = resources_and_prompts?;
        Ok(Registry {
            held,
            tools: Vec::new(),
            index: HashMap::default(),
            resources_and_prompts,
            fingerprints: 0,
        }
        .reindexed())
    }

    /// The index and the fingerprint, after the tools changed.
    fn reindexed(mut self) -> Registry {
        self.tools = self.held.iter().map(|t| t.arc().clone()).collect();
        self.index = self
            .held
            .iter()
            .map(|t| (t.shared_name().clone(), t.clone()))
            .collect();
        self.fingerprints = self
            .tools
            .iter()
            .fold(0, |sum, t| sum.wrapping_add(cursor::tool_fingerprint(t)));
        self
    }

    /// Adds a tool made by hand (see [`Tool`]). An error when its name is taken (naming
    /// both), or its declaration is not valid: its name, hints both read-only and destructive
    /// (as `#[tool]` refuses them), an input schema that is not an object schema or does not
    /// compile (it is compiled here, once: each call's arguments are checked against it).
    ///
    /// ```
    /// # use toolsmith::{CallContext, Hints, Registry, Tool, ToolDescription, tool::ToolFuture, tool::ToolOutput};
    /// # use toolsmith::rmcp::model::JsonObject;
    /// struct Ping;
    /// impl Tool for Ping {
    ///     fn describe(&self) -> ToolDescription {
    ///         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    ///         ToolDescription::new("ping", "Answers pong.", schema, Hints::READ_ONLY)
    ///     }
    ///     fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
    ///         Box::pin(async { Ok(ToolOutput::new().text("pong")) })
    ///     }
    /// }
    ///
    /// let mut registry = Registry::new();
    /// registry.add_tool(Ping).unwrap();
    /// let err = registry.add_tool(Ping).unwrap_err();
    /// assert!(err.to_string().contains("two tools are named 'ping'"), "{err}");
    ///
    /// /// Says it only reads, yet destroys.
    /// struct Purge;
    /// impl Tool for Purge {
    ///     fn describe(&self) -> ToolDescription {
    ///         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    ///         ToolDescription::new("purge", "Purges every record.", schema, Hints { read_only: true, ..Hints::DESTRUCTIVE })
    ///     }
    ///     fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
    ///         Box::pin(async { Ok(ToolOutput::new().text("purged")) })
    ///     }
    /// }
    /// let err = registry.add_tool(Purge).unwrap_err();
    /// assert!(err.to_string().contains("`destructive` contradicts `read_only`"), "{err}");
    /// assert!(registry.get("purge").is_none());
    /// ```
    pub fn add_tool(&mut self, tool: impl Tool) -> Result<(), Error> {
        self.add_shared(Arc::new(tool))
    }

    /// [`Registry::add_tool`] for a tool already shared (one value in several registries).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use toolsmith::{CallContext, Hints, Registry, Tool, ToolDescription, tool::ToolFuture, tool::ToolOutput};
    /// # use toolsmith::rmcp::model::JsonObject;
    /// # struct Ping;
    /// # impl Tool for Ping {
    /// #     fn describe(&self) -> ToolDescription {
    /// #         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// #         ToolDescription::new("ping", "Answers pong.", schema, Hints::READ_ONLY)
    /// #     }
    /// #     fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
    /// #         Box::pin(async { Ok(ToolOutput::new().text("pong")) })
    /// #     }
    /// # }
    /// let ping: Arc<dyn Tool> = Arc::new(Ping);
    /// let mut a = Registry::new();
    /// let mut b = Registry::new();
    /// a.add_shared(ping.clone()).unwrap();
    /// b.add_shared(ping).unwrap();
    /// assert_eq!(a.tools()[0].name(), b.tools()[0].name());
    /// ```
    pub fn add_shared(&mut self, tool: Arc<dyn Tool>) -> Result<(), Error> {
        let info = ToolInfo::of_tool(tool, &mut SchemaCache::default())
            .map_err(|why| Error::config("tool", why))?;
        self.insert(ToolRef::Shared(Arc::new(info)))
    }

    /// `self` with the tool added (see [`Registry::add_tool`]).
    ///
    /// ```
    /// # use toolsmith::{CallContext, Hints, Registry, Tool, ToolDescription, tool::ToolFuture, tool::ToolOutput};
    /// # use toolsmith::rmcp::model::JsonObject;
    /// # struct Ping;
    /// # impl Tool for Ping {
    /// #     fn describe(&self) -> ToolDescription {
    /// #         let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap();
    /// #         ToolDescription::new("ping", "Answers pong.", schema, Hints::READ_ONLY)
    /// #     }
    /// #     fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
    /// #         Box::pin(async { Ok(ToolOutput::new().text("pong")) })
    /// #     }
    /// # }
    /// let registry = Registry::new().with_tool(Ping).unwrap();
    /// assert_eq!(registry.get("ping").unwrap().hints(), Hints::READ_ONLY);
    /// assert!(registry.with_tool(Ping).is_err());
    /// ```
    pub fn with_tool(mut self, tool: impl Tool) -> Result<Registry, Error> {
        self.add_tool(tool)?;
        Ok(self)
    }

    /// Inserts `tool` in its place by name, or says which tool holds the name.
    fn insert(&mut self, tool: ToolRef) -> Result<(), Error> {
        self.refuse_taken(&tool)?;
        let at = self.held.partition_point(|t| t.name() < tool.name());
        self.fingerprints = self
            .fingerprints
            .wrapping_add(cursor::tool_fingerprint(&tool));
        self.index.insert(tool.shared_name().clone(), tool.clone());
        self.tools.insert(at, tool.arc().clone());
        self.held.insert(at, tool);
        Ok(())
    }

    /// The error naming both when a tool holds `tool`'s name already.
    fn refuse_taken(&self, tool: &ToolInfo) -> Result<(), Error> {
        match self.get(tool.name()) {
            Some(held) => Err(Error::DuplicateTool {
                name: tool.name().to_owned(),
                first: held.described(),
                second: tool.described(),
            }),
            None => Ok(()),
        }
    }

    /// Removes the tool named `name`, and returns it (`None` when there is none).
    ///
    /// ```
    /// /// Archive the bookmarks older than a year.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn archive_bookmarks() -> String {
    ///     "archived".into()
    /// }
    ///
    /// let mut registry = toolsmith::Registry::from_inventory().unwrap();
    /// let removed = registry.remove_tool("archive_bookmarks").unwrap();
    /// assert_eq!(removed.name(), "archive_bookmarks");
    /// assert!(registry.get("archive_bookmarks").is_none());
    /// assert!(registry.remove_tool("archive_bookmarks").is_none());
    /// // The program's registry keeps it.
    /// assert!(toolsmith::Registry::global().get("archive_bookmarks").is_some());
    /// ```
    pub fn remove_tool(&mut self, name: &str) -> Option<Arc<ToolInfo>> {
        let at = self.held.binary_search_by(|t| t.name().cmp(name)).ok()?;
        let removed = self.held.remove(at);
        self.tools.remove(at);
        self.index.remove(name);
        self.fingerprints = self
            .fingerprints
            .wrapping_sub(cursor::tool_fingerprint(&removed));
        Some(removed.arc().clone())
    }

    /// Keeps only the tools `keep` accepts (resources and prompts stay).
    ///
    /// ```
    /// /// List the feeds.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn list_feeds() -> Vec<String> {
    ///     vec!["rust".into()]
    /// }
    ///
    /// /// Subscribe to a feed.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn subscribe_feed(url: String) -> String {
    ///     url
    /// }
    ///
    /// let read_only = toolsmith::Registry::from_inventory()
    ///     .unwrap()
    ///     .retain_tools(|tool| tool.hints().read_only);
    /// assert!(read_only.get("list_feeds").is_some());
    /// assert!(read_only.get("subscribe_feed").is_none());
    /// assert!(read_only.tools().iter().all(|t| t.hints().read_only));
    /// ```
    pub fn retain_tools(mut self, mut keep: impl FnMut(&ToolInfo) -> bool) -> Registry {
        self.held.retain(|tool| keep(tool));
        self.reindexed()
    }

    /// Every tool, resource and prompt of both; an error naming both definitions when a
    /// name (or a URI) is in each, or when a resource of one is at a URI a template of the
    /// other matches (within one set the resource answers its URI first, as its author
    /// chose; across two, a read meant for one would reach the other).
    ///
    /// ```
    /// use toolsmith::Registry;
    ///
    /// /// How many unread items the feeds hold.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn count_unread() -> u64 {
    ///     3
    /// }
    ///
    /// let feeds = Registry::from_module(module_path!()).unwrap();
    /// let all = Registry::new().merge(feeds.clone()).unwrap();
    /// assert_eq!(all.len(), 1);
    /// let err = all.merge(feeds).err().expect("count_unread is in both");
    /// assert!(err.to_string().contains("two tools are named 'count_unread'"), "{err}");
    /// ```
    pub fn merge(mut self, other: Registry) -> Result<Registry, Error> {
        // `other`'s names are distinct already: each is checked against `self`'s only, and
        // the whole is sorted and indexed once.
        for tool in &other.held {
            self.refuse_taken(tool)?;
        }
        self.resources_and_prompts =
            ResourcePromptIndex::merged(&self.resources_and_prompts, &other.resources_and_prompts)
                .map_err(Conflict::into_error)?;
        self.held.extend(other.held);
        self.held.sort_by(|a, b| a.name().cmp(b.name()));
        Ok(self.reindexed())
    }

    /// Every tool renamed `{prefix}{name}`: two sets merged without their names meeting
    /// (`notes_search`, `mail_search`). Resources and prompts keep theirs. An error when a
    /// name becomes one MCP does not allow (over 128 characters, or the prefix holds a
    /// character a name may not).
    ///
    /// ```
    /// /// Search the feeds.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn search_feeds(text: String) -> String {
    ///     text
    /// }
    ///
    /// let registry = toolsmith::Registry::from_inventory().unwrap();
    /// let news = registry.clone().prefixed("news_").unwrap();
    /// assert!(news.get("news_search_feeds").is_some());
    /// assert!(news.get("search_feeds").is_none());
    /// assert!(registry.prefixed("news ").is_err());
    /// ```
    pub fn prefixed(mut self, prefix: &str) -> Result<Registry, Error> {
        let mut held = Vec::with_capacity(self.held.len());
        for tool in &self.held {
            let name = format!("{prefix}{}", tool.name());
            crate::tool::check_tool_name(&name).map_err(|why| Error::config("tool", why))?;
            held.push(ToolRef::Shared(Arc::new(tool.renamed(name))));
        }
        self.held = held;
        Ok(self.reindexed())
    }

    /// What differs between `self` and `before`: which of the three lists changed.
    pub(crate) fn changes_since(&self, before: &Registry) -> Changed {
        fn differ<T>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
            a.len() != b.len() || a.iter().zip(b).any(|(a, b)| !same(a, b))
        }
        Changed {
            tools: differ(&self.tools, &before.tools, Arc::ptr_eq),
            resources: differ(self.resources(), before.resources(), ResourceInfo::same),
            prompts: differ(self.prompts(), before.prompts(), PromptInfo::same),
        }
    }

    /// All tools, sorted by name.
    ///
    /// ```
    /// /// Show one feed.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn show_feed(id: u64) -> String {
    ///     format!("feed {id}")
    /// }
    ///
    /// /// Delete a feed.
    /// #[toolsmith::tool(destructive, idempotent, closed_world)]
    /// fn delete_feed(id: u64) -> String {
    ///     format!("deleted {id}")
    /// }
    ///
    /// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let names: Vec<&str> = registry.tools().iter().map(|t| t.name()).collect();
    /// assert_eq!(names, ["delete_feed", "show_feed"]);
    /// ```
    pub fn tools(&self) -> &[Arc<ToolInfo>] {
        &self.tools
    }

    /// The tool named `name`.
    ///
    /// ```
    /// use toolsmith::{Hints, Registry};
    ///
    /// /// Rename a feed.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn rename_feed(id: u64, title: String) -> String {
    ///     format!("{id}: {title}")
    /// }
    ///
    /// let tool = Registry::global().get("rename_feed").unwrap();
    /// assert_eq!(tool.hints(), Hints::ADDITIVE.idempotent().closed_world());
    /// assert!(Registry::global().get("no such tool").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&ToolInfo> {
        self.shared(name).map(|t| &**t)
    }

    /// The tool named `name`, as a call holds it while it runs.
    #[inline]
    pub(crate) fn shared(&self, name: &str) -> Option<&ToolRef> {
        self.index.get(name)
    }

    /// How many tools there are.
    ///
    /// ```
    /// /// Mark every feed read.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn mark_feeds_seen() -> String {
    ///     "done".into()
    /// }
    ///
    /// assert_eq!(toolsmith::Registry::from_module(module_path!()).unwrap().len(), 1);
    /// assert_eq!(toolsmith::Registry::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there is no tool.
    ///
    /// ```
    /// /// Refresh every feed.
    /// #[toolsmith::tool(destructive = false, idempotent)]
    /// fn refresh_feeds() -> String {
    ///     "refreshed".into()
    /// }
    ///
    /// assert!(!toolsmith::Registry::from_module(module_path!()).unwrap().is_empty());
    /// assert!(toolsmith::Registry::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// What list cursors of this set are checked against: changes when a tool is added or
    /// removed (see `cursor.rs`).
    pub(crate) fn fingerprint(&self) -> u64 {
        cursor::fingerprint(self.tools.len(), self.fingerprints)
    }

    /// The package (name, version) that defines most `#[tool]`s: the server's identity by
    /// default.
    pub(crate) fn main_package(&self) -> Option<(&'static str, &'static str)> {
        let mut counts: HashMap<(&'static str, &'static str), usize> = HashMap::new();
        for def in self.tools.iter().filter_map(|tool| tool.def()) {
            *counts.entry((def.package, def.version)).or_default() += 1;
        }
        counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(package, _)| package)
    }

    /// What Cargo says of the package that defines most `#[tool]`s ([`Registry::main_package`]),
    /// for a bundle's manifest; `None` when no `#[tool]` is served.
    #[cfg_attr(not(feature = "bundle"), allow(dead_code))]
    pub(crate) fn main_about(&self) -> Option<crate::tool::def::PackageAbout> {
        let (package, version) = self.main_package()?;
        self.tools
            .iter()
            .filter_map(|tool| tool.def())
            .find(|def| def.package == package && def.version == version)
            .map(|def| def.about)
    }
}

/// Which lists of a registry a change touched: what the servers serving it announce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Changed {
    pub(crate) tools: bool,
    pub(crate) resources: bool,
    pub(crate) prompts: bool,
}

impl Changed {
    pub(crate) fn any(self) -> bool {
        self.tools || self.resources || self.prompts
    }
}

/// The error of `Registry::from_module(path)` when nothing is declared in `path`: the modules
/// that declare something (those nearest the path first, at most five).
fn nothing_declared_in(path: &str, declared: impl Iterator<Item = &'static str>) -> Error {
    let mut modules: Vec<&str> = declared
        .filter_map(|rust_path| rust_path.rsplit_once("::").map(|(module, _)| module))
        .collect();
    modules.sort_unstable();
    modules.dedup();
    let shared = |module: &&str| {
        module
            .chars()
            .zip(path.chars())
            .take_while(|(a, b)| a == b)
            .count()
    };
    modules.sort_by_key(|module| std::cmp::Reverse(shared(module)));
    let named: Vec<String> = modules.iter().take(5).map(|m| format!("`{m}`")).collect();
    let known = match named.is_empty() {
        true => "none declares a #[tool], #[resource] or #[prompt]".to_owned(),
        false => format!("modules that declare some: {}", named.join(", ")),
    };
    Error::Config {
        setting: "module path",
        message: format!(
            "nothing is declared in `{path}` or in a module inside it ({known}); write the path as `module_path!()` gives it, or use Registry::new() for an empty registry"
        ),
        source: None,
    }
}

#[cfg(test)]
mod tests;
