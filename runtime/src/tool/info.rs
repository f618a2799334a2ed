//! [`ToolInfo`]: one registered tool, with what is computed from it once.

use std::any::TypeId;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use rmcp::model::{Icon, MetaObject, Tool, ToolAnnotations};
use serde_json::{Map, Value};

use crate::Hints;
use crate::tool::def::{OutputDef, ParamDef, ToolDef};
use crate::tool::schema::{self, JsonObject, OutputSchema};

/// The `_meta` key holding a tool's category.
///
/// ```
/// assert_eq!(toolsmith::META_CATEGORY, "dev.toolsmith/category");
/// ```
pub const META_CATEGORY: &str = "dev.toolsmith/category";
/// The `_meta` key holding a tool's tags.
///
/// ```
/// assert_eq!(toolsmith::META_TAGS, "dev.toolsmith/tags");
/// ```
pub const META_TAGS: &str = "dev.toolsmith/tags";

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
    /// A parameter asks the client during the call (`Elicit`, `Sample`).
    asks: bool,
}

/// Schemas already built: tools with the same parameters get the input schema built once,
/// and schemas equal in content share one copy.
#[derive(Default)]
pub(crate) struct SchemaCache {
    by_content: HashMap<u64, Vec<Arc<JsonObject>>>,
    by_params: HashMap<(Vec<ParamKey>, bool), Built>,
}

/// An input schema and what each parameter expects.
type Built = (Arc<JsonObject>, Vec<String>);

/// What decides a parameter's part of the input schema.
#[derive(PartialEq, Eq, Hash)]
enum ParamKey {
    Argument {
        name: &'static str,
        description: Option<&'static str>,
        required: bool,
        type_id: TypeId,
    },
    /// Not in the schema, but it holds its place in the list of what each parameter expects.
    Context,
}

impl SchemaCache {
    /// The input schema of `params` and what each expects, built once per distinct list
    /// of parameters (when every parameter's type is known).
    fn input(&mut self, params: &[ParamDef], declared: bool) -> (Arc<JsonObject>, Vec<String>) {
        let key: Option<Vec<ParamKey>> = params
            .iter()
            .map(|p| match p.is_argument() {
                true => Some(ParamKey::Argument {
                    name: p.name,
                    description: p.description,
                    required: p.required,
                    type_id: (p.type_id)()?,
                }),
                false => Some(ParamKey::Context),
            })
            .collect();
        let key = key.map(|key| (key, declared));
        if let Some(built) = key.as_ref().and_then(|key| self.by_params.get(key)) {
            return built.clone();
        }
        let (input, expected) = schema::input_of(params, declared);
        let built = (self.share(input), expected);
        if let Some(key) = key {
            self.by_params.insert(key, built.clone());
        }
        built
    }

    fn share(&mut self, schema: JsonObject) -> Arc<JsonObject> {
        let mut hasher = foldhash::fast::FixedState::default().build_hasher();
        hash_object(&schema, &mut hasher);
        let same = self.by_content.entry(hasher.finish()).or_default();
        if let Some(shared) = same.iter().find(|shared| same_object(shared, &schema)) {
            return shared.clone();
        }
        let shared = Arc::new(schema);
        same.push(shared.clone());
        shared
    }
}

/// A structural hash of a JSON object (order-sensitive; equal objects whose keys come in
/// another order just are not shared).
fn hash_object(object: &JsonObject, state: &mut impl Hasher) {
    state.write_usize(object.len());
    for (key, value) in object {
        key.hash(state);
        hash_value(value, state);
    }
}

/// Equal with the keys in the same order (what sharing needs, and no hashing).
fn same_object(a: &JsonObject, b: &JsonObject) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && same_value(va, vb))
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(a), Value::Object(b)) => same_object(a, b),
        (a, b) => a == b,
    }
}

fn hash_value(value: &Value, state: &mut impl Hasher) {
    match value {
        Value::Null => state.write_u8(0),
        Value::Bool(b) => b.hash(state),
        Value::Number(n) => n.hash(state),
        Value::String(s) => s.hash(state),
        Value::Array(items) => {
            state.write_usize(items.len());
            items.iter().for_each(|item| hash_value(item, state));
        }
        Value::Object(object) => hash_object(object, state),
    }
}

impl ToolInfo {
    pub(crate) fn new(def: &'static ToolDef, schemas: &mut SchemaCache) -> Self {
        let (input, expected) = schemas.input(def.params, def.json_schema);
        let (output, wrapped) = match def.output {
            OutputDef::Json(schema) => {
                let OutputSchema { schema, wrapped } = schema();
                (Some(schemas.share(schema)), wrapped)
            }
            OutputDef::Empty | OutputDef::Text | OutputDef::Content => (None, false),
        };
        let annotations = ToolAnnotations::from_raw(
            def.title.map(str::to_owned),
            Some(def.hints.read_only),
            Some(def.hints.destructive),
            Some(def.hints.idempotent),
            Some(def.hints.open_world),
        );
        let mut tool = Tool::new(def.name, def.description, input).with_annotations(annotations);
        if let Some(title) = def.title {
            tool = tool.with_title(title);
        }
        if let Some(output) = output {
            tool = tool.with_raw_output_schema(output);
        }
        if !def.icons.is_empty() {
            tool.icons = Some(def.icons.iter().map(|src| Icon::new(*src)).collect());
        }
        let mut meta = Map::new();
        if let Some(category) = def.category {
            meta.insert(META_CATEGORY.into(), category.into());
        }
        if !def.tags.is_empty() {
            meta.insert(META_TAGS.into(), Value::from(def.tags.to_vec()));
        }
        if !meta.is_empty() {
            tool = tool.with_meta(MetaObject(meta));
        }
        ToolInfo {
            def,
            tool,
            wrapped,
            expected,
            asks: def.asks(),
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

    /// The category given by `#[tool(category = "...")]`.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// let group = tool.category().unwrap_or("uncategorized");
    /// # let _ = group; }
    /// ```
    pub fn category(&self) -> Option<&'static str> {
        self.def.category
    }

    /// The icons given by `#[tool(icon = "...")]` or `icons = [...]`, in order.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// assert!(tool.icons().iter().all(|i| i.starts_with("https:") || i.starts_with("data:")));
    /// # }
    /// ```
    pub fn icons(&self) -> &'static [&'static str] {
        self.def.icons
    }

    /// The tags given by `#[tool(tags = [...])]`.
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// let searchable = tool.tags().contains(&"search");
    /// # let _ = searchable; }
    /// ```
    pub fn tags(&self) -> &'static [&'static str] {
        self.def.tags
    }

    /// `#[tool(max_concurrency = N)]`: at most N calls of it run at once (more wait, up to
    /// their timeout).
    ///
    /// ```
    /// for tool in toolsmith::registry().tools() {
    ///     assert_ne!(tool.max_concurrency(), Some(0));
    /// }
    /// ```
    pub fn max_concurrency(&self) -> Option<u32> {
        self.def.max_concurrency
    }

    /// The OAuth scopes the tool names with `#[tool(scopes = [...])]` (empty when its
    /// hints decide; see [`ScopeNames::required`](crate::ScopeNames::required)).
    ///
    /// ```
    /// for tool in toolsmith::registry().tools() {
    ///     println!("{}: {:?}", tool.name(), tool.scopes());
    /// }
    /// ```
    pub fn scopes(&self) -> &'static [&'static str] {
        self.def.scopes
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

    /// Whether the tool declares `#[tool(confirm)]`: the user is asked before every call,
    /// whatever the server's [`Confirm`](crate::Confirm) policy.
    ///
    /// ```
    /// let confirming = toolsmith::registry().tools().iter().filter(|t| t.declares_confirm()).count();
    /// # let _ = confirming;
    /// ```
    pub fn declares_confirm(&self) -> bool {
        self.def.confirm.asks
    }

    /// Whether the tool asks its client during a call: an [`Elicit`](crate::Elicit) or
    /// [`Sample`](crate::Sample) parameter.
    ///
    /// ```
    /// let asking = toolsmith::registry().tools().iter().filter(|t| t.asks_client()).count();
    /// # let _ = asking;
    /// ```
    pub fn asks_client(&self) -> bool {
        self.asks
    }

    /// Whether its calls run as tasks: `#[tool(task)]` or `#[tool(task = "required")]`.
    ///
    /// ```
    /// for tool in toolsmith::registry().tools() {
    ///     println!("{}: {}", tool.name(), tool.task().as_str());
    /// }
    /// ```
    pub fn task(&self) -> crate::TaskSupport {
        self.def.task
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

    pub(crate) fn described(&self) -> String {
        format!("`{}` at {}", self.def.rust_path, self.location())
    }
}

impl std::fmt::Debug for ToolInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolInfo")
            .field("name", &self.name())
            .field("title", &self.title())
            .field("hints", &self.hints())
            .field("category", &self.category())
            .field("tags", &self.tags())
            .field("location", &self.location())
            .finish()
    }
}

#[cfg(test)]
mod tests;
