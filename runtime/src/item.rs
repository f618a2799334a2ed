//! What tools, resources and prompts have in common, written once: the part of a definition
//! every macro generates alike ([`ItemDef`]), and the [`Header`] each registered item carries
//! (its name, title, description, icons, scopes and where it was declared), which
//! [`ToolInfo::header`](crate::tool::ToolInfo::header), [`ResourceInfo::header`](crate::resource::ResourceInfo::header)
//! and [`PromptInfo::header`](crate::prompt::PromptInfo::header) give.

use std::sync::Arc;

use crate::context::ToolName;

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
/// for tool in toolsmith::Registry::global().tools() {
///     let header = tool.header();
///     assert_eq!(header.name(), tool.name());
///     println!("{}: {}", header.title().unwrap_or(header.name()), header.description());
/// }
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
    /// At run time: what the code that made it says (a `Tool`'s `origin`).
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
    /// for tool in toolsmith::Registry::global().tools() {
    ///     assert!(!tool.header().name().is_empty());
    /// }
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
    /// # for tool in toolsmith::Registry::global().tools() {
    /// let shown = tool.header().title().unwrap_or(tool.name());
    /// # let _ = shown; }
    /// ```
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The description a model reads (a function's rustdoc without its `# Arguments`).
    ///
    /// ```
    /// # for tool in toolsmith::Registry::global().tools() {
    /// assert!(!tool.header().description().is_empty());
    /// # }
    /// ```
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The icons given by `icon = "..."` or `icons = [...]`, in order (`https:` or `data:`).
    ///
    /// ```
    /// # for tool in toolsmith::Registry::global().tools() {
    /// let icons = tool.header().icons();
    /// assert!(icons.iter().all(|i| i.starts_with("https:") || i.starts_with("data:")));
    /// # }
    /// ```
    pub fn icons(&self) -> &[String] {
        &self.icons
    }

    /// The OAuth scopes it names with `scopes = [...]` (all of them needed); empty when the
    /// default decides (a tool's hints, the read scope for a resource or a prompt: see
    /// [`ScopeNames`](crate::tool::ScopeNames)).
    ///
    /// ```
    /// for tool in toolsmith::Registry::global().tools() {
    ///     println!("{}: {:?}", tool.name(), tool.header().scopes());
    /// }
    /// ```
    pub fn scopes(&self) -> &'static [&'static str] {
        self.scopes
    }

    /// Where it was declared: `file:line` of a macro's function, the origin given by what was
    /// made at run time (a [`Tool`](crate::Tool)'s [`origin`](crate::Tool::origin)).
    ///
    /// ```
    /// # for tool in toolsmith::Registry::global().tools() {
    /// assert!(tool.header().location().contains(':'));
    /// # }
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
    /// # for tool in toolsmith::Registry::global().tools() {
    /// assert!(tool.header().rust_path().contains("::"));
    /// # }
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
