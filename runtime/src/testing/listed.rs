//! A listed tool in toolsmith's terms ([`ListedTool`]), read from the `tools/list` answer the
//! client got: tests assert hints as [`Hints`], not as rmcp's annotation fields. And how often
//! each list changed, as the client heard it.

use rmcp::model::Tool;
use serde_json::Value;

use crate::{Hints, tool::META_CATEGORY, tool::META_TAGS, tool::ScopeNames};

/// A tool as the server lists it: what a client sees, in toolsmith's terms (see
/// [`Client::tools`](super::Client::tools)).
///
/// ```
/// use toolsmith::Hints;
/// use toolsmith::testing::ListedTool;
///
/// fn is_safe_search(tool: &ListedTool) -> bool {
///     tool.hints == Hints::READ_ONLY.closed_world() && tool.scopes == ["tools:read"]
/// }
///
/// /// Search the recipes.
/// #[toolsmith::tool(read_only, closed_world, category = "kitchen")]
/// fn search_recipes(query: String) -> Vec<String> {
///     vec![query]
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "search_recipes"));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let tools = client.tools().await.unwrap();
/// assert!(is_safe_search(&tools[0]), "{:?}", tools[0]);
/// assert_eq!(tools[0].category.as_deref(), Some("kitchen"));
/// assert_eq!(tools[0].description.as_deref(), Some("Search the recipes."));
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListedTool {
    /// The tool's name.
    pub name: String,
    /// Its title, when it has one.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Its hints, as listed (a hint the server left out takes the specification's default).
    pub hints: Hints,
    /// Its category (`_meta` [`META_CATEGORY`]).
    pub category: Option<String>,
    /// Its tags (`_meta` [`META_TAGS`]).
    pub tags: Vec<String>,
    /// The OAuth scopes a caller needs over HTTP with authorization, by the server's scope
    /// names: its hints' scope, or the ones it names with `#[tool(scopes = [...])]`.
    pub scopes: Vec<String>,
}

impl ListedTool {
    /// `tool` as listed, with the scopes `names` give it.
    pub(super) fn new(tool: &Tool, names: &ScopeNames, registry: &crate::Registry) -> ListedTool {
        let annotations = tool.annotations.as_ref();
        let hint = |get: fn(&rmcp::model::ToolAnnotations) -> Option<bool>, default| {
            annotations.and_then(get).unwrap_or(default)
        };
        let defaults = Hints::DEFAULT;
        let hints = Hints {
            read_only: hint(|a| a.read_only_hint, defaults.read_only),
            destructive: hint(|a| a.destructive_hint, defaults.destructive),
            idempotent: hint(|a| a.idempotent_hint, defaults.idempotent),
            open_world: hint(|a| a.open_world_hint, defaults.open_world),
        };
        let meta = |key: &str| tool.meta.as_ref().and_then(|m| m.get(key));
        let scopes = registry
            .get(&tool.name)
            .map(|info| {
                names
                    .required(info)
                    .scopes()
                    .into_iter()
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        ListedTool {
            name: tool.name.to_string(),
            title: tool
                .title
                .clone()
                .or_else(|| annotations.and_then(|a| a.title.clone())),
            description: tool.description.as_ref().map(|d| d.to_string()),
            hints,
            category: meta(META_CATEGORY)
                .and_then(Value::as_str)
                .map(str::to_owned),
            tags: meta(META_TAGS)
                .and_then(Value::as_array)
                .map(|tags| {
                    tags.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            scopes,
        }
    }
}

impl super::Client {
    /// The server's `instructions`, as its `initialize` result gave them (see
    /// [`Server::instructions`](crate::Server::instructions)).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// assert_eq!(client.instructions(), None);
    /// # }
    /// ```
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// How many `notifications/tools/list_changed` the server sent so far (a server whose
    /// [`RegistryHandle`](crate::registry::RegistryHandle) added or removed a tool).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// assert_eq!(client.tool_list_changes(), 0);
    /// # }
    /// ```
    pub fn tool_list_changes(&self) -> usize {
        self.driver.list_changes().tools
    }

    /// How many `notifications/resources/list_changed` the server sent so far (a
    /// [`RegistryHandle`](crate::registry::RegistryHandle) added or removed a resource, or a tool said
    /// so through [`Resources`](crate::context::Resources)).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// assert_eq!(client.resource_list_changes(), 0);
    /// # }
    /// ```
    pub fn resource_list_changes(&self) -> usize {
        self.driver.list_changes().resources
    }

    /// How many `notifications/prompts/list_changed` the server sent so far (a
    /// [`RegistryHandle`](crate::registry::RegistryHandle) added or removed a prompt).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// assert_eq!(client.prompt_list_changes(), 0);
    /// # }
    /// ```
    pub fn prompt_list_changes(&self) -> usize {
        self.driver.list_changes().prompts
    }
}
