//! What tools, resources and prompts have in common, written once: the part of a definition
//! every macro generates alike ([`ItemDef`]), and the [`Header`] each registered item carries
//! (its name, title, description, icons, scopes and where it was declared), which
//! [`ToolInfo::header`](crate::tool::ToolInfo::header), [`ResourceInfo::header`](crate::resource::ResourceInfo::header)
//! and [`PromptInfo::header`](crate::prompt::PromptInfo::header) give; and [`About`], that part
//! as what a tool, a resource or a prompt made at run time says of itself.

mod about;

use std::sync::Arc;

use crate::context::ToolName;

pub use about::About;
pub(crate) use about::about_builders;

/// The part of a `#[tool]`, `#[resource]` or `#[prompt]` definition they share, as the
/// macros generate it. Not a public API (reached through `__private`).
#[doc(hidden)]
#[derive(Debug)]
pub struct ItemDef {
    /// The MCP name (the function's, unless `name = "..."` says otherwise).
    pub name: &'static str,
    /// `module_path!()` and the function's name.
    pub rust_path: &'static str,
    pub file: &'static str,
    pub line: u32,
    pub title: Option<&'static str>,
    /// The rustdoc without its `# Arguments` section.
    pub description: &'static str,
    /// `https:` or `data:` URIs, checked by the macro.
    pub icons: &'static [&'static str],
    /// `scopes = [...]`: the OAuth scopes a caller needs (all of them), checked by the macro.
    pub scopes: &'static [&'static str],
}

/// What a tool, a resource or a prompt says of itself besides what only its kind has: its
/// name, title, description, icons and scopes, and where it was declared.
///
/// ```
/// /// Pin a bookmark to the top of the list.
/// #[toolsmith::tool(destructive = false, idempotent, closed_world, title = "Pin bookmark")]
/// fn pin_bookmark(id: u64) -> String {
///     format!("pinned {id}")
/// }
///
/// let header = toolsmith::Registry::global().get("pin_bookmark").unwrap().header();
/// assert_eq!(header.name(), "pin_bookmark");
/// assert_eq!(header.title(), Some("Pin bookmark"));
/// assert_eq!(header.description(), "Pin a bookmark to the top of the list.");
/// ```
#[derive(Clone, Debug)]
pub struct Header {
    name: ToolName,
    title: Option<Arc<str>>,
    description: Arc<str>,
    icons: Vec<String>,
    scopes: &'static [&'static str],
    origin: Origin,
}

/// Where an item was declared.
#[derive(Clone, Debug)]
enum Origin {
    /// By a macro: its function's path, file and line.
    Declared(&'static ItemDef),
    /// At run time: what the code that made it says (its `About::origin`).
    Given(String),
}

impl Header {
    /// The header of what a macro declared.
    pub(crate) fn of_def(def: &'static ItemDef) -> Header {
        Header {
            name: ToolName::Static(def.name),
            title: def.title.map(Arc::from),
            description: Arc::from(def.description),
            icons: def.icons.iter().map(|icon| (*icon).to_owned()).collect(),
            scopes: def.scopes,
            origin: Origin::Declared(def),
        }
    }

    /// The header of an item made at run time (`origin`: what says where, for messages).
    pub(crate) fn made(
        name: &str,
        title: Option<&str>,
        description: &str,
        icons: Vec<String>,
        scopes: &'static [&'static str],
        origin: String,
    ) -> Header {
        Header {
            name: ToolName::Shared(Arc::from(name)),
            title: title.map(Arc::from),
            description: Arc::from(description),
            icons,
            scopes,
            origin: Origin::Given(origin),
        }
    }

    /// The same header under another name (a registry's prefix).
    pub(crate) fn renamed(&self, name: String) -> Header {
        Header {
            name: ToolName::Shared(Arc::from(name)),
            ..self.clone()
        }
    }

    /// The MCP name: what a client calls, reads or gets it by.
    ///
    /// ```
    /// /// Star a bookmark.
    /// #[toolsmith::tool(name = "bookmarks.star", destructive = false, idempotent, closed_world)]
    /// fn star_bookmark(id: u64) -> String {
    ///     format!("starred {id}")
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// assert_eq!(registry.get("bookmarks.star").unwrap().header().name(), "bookmarks.star");
    /// assert!(registry.get("star_bookmark").is_none());
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name, as a request carries it (its context, its log line).
    pub(crate) fn shared_name(&self) -> &ToolName {
        &self.name
    }

    /// The human-readable title, when it declares one.
    ///
    /// ```
    /// /// Tag a bookmark.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world, title = "Tag bookmark")]
    /// fn tag_bookmark(id: u64, tag: String) -> String {
    ///     format!("{id}: {tag}")
    /// }
    ///
    /// /// Untag a bookmark.
    /// #[toolsmith::tool(destructive, idempotent, closed_world)]
    /// fn untag_bookmark(id: u64, tag: String) -> String {
    ///     format!("{id}: -{tag}")
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// assert_eq!(registry.get("tag_bookmark").unwrap().header().title(), Some("Tag bookmark"));
    /// assert_eq!(registry.get("untag_bookmark").unwrap().header().title(), None);
    /// ```
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The description a model reads (a function's rustdoc without its `# Arguments`).
    ///
    /// ```
    /// /// Move a bookmark into a folder.
    /// ///
    /// /// # Arguments
    /// /// * `folder` - The folder it goes to.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn move_bookmark(id: u64, folder: String) -> String {
    ///     format!("{id} in {folder}")
    /// }
    ///
    /// let tool = toolsmith::Registry::global().get("move_bookmark").unwrap();
    /// assert_eq!(tool.header().description(), "Move a bookmark into a folder.");
    /// ```
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The icons given by `icon = "..."` or `icons = [...]`, in order (`https:` or `data:`).
    ///
    /// ```
    /// /// How many bookmarks there are.
    /// #[toolsmith::tool(read_only, closed_world, icon = "https://example.com/bookmark.png")]
    /// fn count_bookmarks() -> u64 {
    ///     42
    /// }
    ///
    /// let tool = toolsmith::Registry::global().get("count_bookmarks").unwrap();
    /// assert_eq!(tool.header().icons(), ["https://example.com/bookmark.png"]);
    /// ```
    pub fn icons(&self) -> &[String] {
        &self.icons
    }

    /// The OAuth scopes it names with `scopes = [...]` (all of them needed); empty when the
    /// default decides (a tool's hints, the read scope for a resource or a prompt: see
    /// [`ScopeNames`](crate::tool::ScopeNames)).
    ///
    /// ```
    /// /// Purge every bookmark in the trash.
    /// #[toolsmith::tool(destructive, idempotent, closed_world, scopes = ["bookmarks:admin"])]
    /// fn purge_bookmarks() -> String {
    ///     "purged".into()
    /// }
    ///
    /// /// Sort the bookmarks by date.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn sort_bookmarks() -> String {
    ///     "sorted".into()
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// assert_eq!(registry.get("purge_bookmarks").unwrap().header().scopes(), ["bookmarks:admin"]);
    /// assert!(registry.get("sort_bookmarks").unwrap().header().scopes().is_empty());
    /// ```
    pub fn scopes(&self) -> &'static [&'static str] {
        self.scopes
    }

    /// Where it was declared: `file:line` of a macro's function, the origin given by what was
    /// made at run time (its [`About::origin`]).
    ///
    /// ```
    /// /// Export the bookmarks as HTML.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn export_bookmarks() -> String {
    ///     "<dl></dl>".into()
    /// }
    /// let below = line!();
    ///
    /// let tool = toolsmith::Registry::global().get("export_bookmarks").unwrap();
    /// assert_eq!(tool.header().location(), format!("{}:{}", file!(), below - 3));
    /// ```
    pub fn location(&self) -> String {
        match &self.origin {
            Origin::Declared(def) => format!("{}:{}", def.file, def.line),
            Origin::Given(origin) => origin.clone(),
        }
    }

    /// The Rust path of a macro's function; of what was made at run time, its origin.
    ///
    /// ```
    /// /// Import bookmarks from an HTML export.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn import_bookmarks(html: String) -> usize {
    ///     html.matches("<dt>").count()
    /// }
    ///
    /// let tool = toolsmith::Registry::global().get("import_bookmarks").unwrap();
    /// assert_eq!(tool.header().rust_path(), concat!(module_path!(), "::import_bookmarks"));
    /// ```
    pub fn rust_path(&self) -> &str {
        match &self.origin {
            Origin::Declared(def) => def.rust_path,
            Origin::Given(origin) => origin,
        }
    }

    /// How an error names it: "`path` at file:line", or its origin.
    pub(crate) fn described(&self) -> String {
        match &self.origin {
            Origin::Declared(def) => format!("`{}` at {}:{}", def.rust_path, def.file, def.line),
            Origin::Given(origin) => format!("`{origin}`"),
        }
    }
}
