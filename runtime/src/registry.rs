//! Every `#[tool]` in the program, collected through `inventory`: no list to keep.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use rmcp::model::{Tool, ToolAnnotations};
use schemars::{Schema, SchemaGenerator};

use crate::args::Arguments;
use crate::output::Outcome;
use crate::schema::{self, JsonObject, OutputSchema};
use crate::{Error, Hints};

/// One tool as `#[tool]` declares it: a static value registered through `inventory`.
#[doc(hidden)]
pub struct ToolDef {
    pub name: &'static str,
    pub rust_path: &'static str,
    pub file: &'static str,
    pub line: u32,
    pub package: &'static str,
    pub version: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub hints: Hints,
    pub params: &'static [ParamDef],
    pub output: OutputDef,
    pub invoke: for<'a> fn(Arguments<'a>) -> Invocation,
}

inventory::collect!(ToolDef);

/// One parameter of a tool.
#[doc(hidden)]
pub struct ParamDef {
    pub name: &'static str,
    pub description: Option<&'static str>,
    pub required: bool,
    pub schema: fn(&mut SchemaGenerator) -> Schema,
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
}

/// A call whose arguments were decoded: ready to run, or refused.
#[doc(hidden)]
pub enum Invocation {
    /// The arguments were wrong; the message says which and how.
    Invalid(String),
    /// A sync tool, to run off the async reactor.
    Blocking(Box<dyn FnOnce() -> Outcome + Send>),
    /// An async tool.
    Async(Pin<Box<dyn Future<Output = Outcome> + Send>>),
}

/// A registered tool: its declaration plus what is computed from it once (schemas, the MCP
/// `Tool` sent by `tools/list`).
///
/// ```
/// for tool in toolsmith::registry().tools() {
///     println!("{} ({}) at {}", tool.name(), tool.hints(), tool.location());
/// }
/// ```
pub struct ToolInfo {
    def: &'static ToolDef,
    tool: Tool,
    wrapped: bool,
    expected: Vec<String>,
}

impl ToolInfo {
    fn new(def: &'static ToolDef) -> Self {
        let (input, expected) = schema::input(def.params);
        let (output, wrapped) = match def.output {
            OutputDef::Json(schema) => {
                let OutputSchema { schema, wrapped } = schema();
                (Some(Arc::new(schema)), wrapped)
            }
            OutputDef::Empty | OutputDef::Text => (None, false),
        };
        let annotations = ToolAnnotations::from_raw(
            def.title.map(str::to_owned),
            Some(def.hints.read_only),
            Some(def.hints.destructive),
            Some(def.hints.idempotent),
            Some(def.hints.open_world),
        );
        let mut tool =
            Tool::new(def.name, def.description, Arc::new(input)).with_annotations(annotations);
        if let Some(title) = def.title {
            tool = tool.with_title(title);
        }
        if let Some(output) = output {
            tool = tool.with_raw_output_schema(output);
        }
        ToolInfo {
            def,
            tool,
            wrapped,
            expected,
        }
    }

    /// The MCP tool name.
    ///
    /// ```
    /// let names: Vec<&str> = toolsmith::registry().tools().iter().map(|t| t.name()).collect();
    /// # let _ = names;
    /// ```
    pub fn name(&self) -> &'static str {
        self.def.name
    }

    /// The human-readable title, when the tool declares one.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// let shown = tool.title().unwrap_or(tool.name());
    /// # let _ = shown; }
    /// ```
    pub fn title(&self) -> Option<&'static str> {
        self.def.title
    }

    /// The description the model reads (the rustdoc without its `# Arguments` section).
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// assert!(!tool.description().is_empty());
    /// # }
    /// ```
    pub fn description(&self) -> &'static str {
        self.def.description
    }

    /// The four behaviour hints, always complete.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// let auto_run = tool.hints().read_only;
    /// # let _ = auto_run; }
    /// ```
    pub fn hints(&self) -> Hints {
        self.def.hints
    }

    /// The JSON Schema of the tool's arguments.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// assert_eq!(tool.input_schema()["type"], "object");
    /// # }
    /// ```
    pub fn input_schema(&self) -> &JsonObject {
        &self.tool.input_schema
    }

    /// The JSON Schema of the tool's structured result, when it has one.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// if let Some(schema) = tool.output_schema() { assert_eq!(schema["type"], "object"); }
    /// # }
    /// ```
    pub fn output_schema(&self) -> Option<&JsonObject> {
        self.tool.output_schema.as_deref()
    }

    /// Where the tool is defined, as `file:line`.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// assert!(tool.location().contains(':'));
    /// # }
    /// ```
    pub fn location(&self) -> String {
        format!("{}:{}", self.def.file, self.def.line)
    }

    /// The Rust path of the function behind the tool.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// assert!(tool.rust_path().contains("::"));
    /// # }
    /// ```
    pub fn rust_path(&self) -> &'static str {
        self.def.rust_path
    }

    /// The tool as MCP's `tools/list` sends it.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// assert_eq!(tool.mcp_tool().name, tool.name());
    /// # }
    /// ```
    pub fn mcp_tool(&self) -> &Tool {
        &self.tool
    }

    pub(crate) fn def(&self) -> &'static ToolDef {
        self.def
    }

    pub(crate) fn wrapped(&self) -> bool {
        self.wrapped
    }

    pub(crate) fn expected(&self) -> &[String] {
        &self.expected
    }

    fn described(&self) -> String {
        format!("`{}` at {}", self.def.rust_path, self.location())
    }
}

/// Every registered tool, sorted by name, with its schemas computed once.
///
/// ```
/// let registry = toolsmith::registry();
/// assert_eq!(registry.len(), registry.tools().len());
/// ```
pub struct Registry {
    tools: Vec<ToolInfo>,
    index: HashMap<&'static str, usize>,
    mcp_tools: Arc<Vec<Tool>>,
}

impl Registry {
    fn build(defs: impl IntoIterator<Item = &'static ToolDef>) -> Result<Registry, Error> {
        let mut defs: Vec<&'static ToolDef> = defs.into_iter().collect();
        defs.sort_by(|a, b| (a.name, a.file, a.line).cmp(&(b.name, b.file, b.line)));
        let tools: Vec<ToolInfo> = defs.into_iter().map(ToolInfo::new).collect();
        if let Some(pair) = tools.windows(2).find(|w| w[0].name() == w[1].name()) {
            return Err(Error::DuplicateTool {
                name: pair[0].name().to_owned(),
                first: pair[0].described(),
                second: pair[1].described(),
            });
        }
        let index = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name(), i))
            .collect();
        let mcp_tools = Arc::new(tools.iter().map(|t| t.tool.clone()).collect());
        Ok(Registry {
            tools,
            index,
            mcp_tools,
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

    /// Every tool as MCP's `tools/list` sends them.
    pub(crate) fn mcp_tools(&self) -> &Arc<Vec<Tool>> {
        &self.mcp_tools
    }

    /// The package (name, version) that defines most tools: the server's identity by
    /// default.
    pub(crate) fn main_package(&self) -> Option<(&'static str, &'static str)> {
        let mut counts: HashMap<(&'static str, &'static str), usize> = HashMap::new();
        for tool in &self.tools {
            *counts
                .entry((tool.def.package, tool.def.version))
                .or_default() += 1;
        }
        counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(package, _)| package)
    }
}

static REGISTRY: OnceLock<Result<Registry, Error>> = OnceLock::new();

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

/// The registry of every `#[tool]`, or the error that prevents building it (two tools
/// with one name, each definition named by `file:line`).
///
/// ```
/// let registry = toolsmith::try_registry().expect("tool names are unique");
/// # let _ = registry;
/// ```
pub fn try_registry() -> Result<&'static Registry, Error> {
    match REGISTRY.get_or_init(|| Registry::build(inventory::iter::<ToolDef>)) {
        Ok(registry) => Ok(registry),
        Err(Error::DuplicateTool {
            name,
            first,
            second,
        }) => Err(Error::DuplicateTool {
            name: name.clone(),
            first: first.clone(),
            second: second.clone(),
        }),
        Err(other) => Err(Error::Task(other.to_string())),
    }
}
