//! Search mode ([`Server::tool_search`](crate::Server::tool_search), `serve --tool-search`):
//! `tools/list` gives two tools instead of every tool, `search_tools` (words, filters by
//! hints, category and tag, paged) and `call_tool` (a tool found, by name, with its
//! arguments), so that a client of hundreds of tools reads two. A `call_tool` call is
//! unwrapped before anything else is decided for it ([`ToolSearch::unwrap`], called where
//! every call comes in, `front/answer.rs`): the policy, the scopes, confirmation, approvals,
//! layers and the log see the tool actually called, by its own name. A tool stays callable by
//! its name too; `search_tools` finds only what the caller may call.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, Tool as Listed};
use serde_json::{Map, Value, json};

use super::{Confirm, Policy};
use crate::context::CallContext;
use crate::registry::search::{decode_cursor, paginate, scope_of};
use crate::registry::{RegistryHandle, Search};
use crate::tool::{SchemaCache, ScopeNames, Tool, ToolFuture, ToolInfo, ToolOutput, ToolRef};
use crate::{Hints, JsonObject, Registry, ToolDescription, ToolError};

/// The tool that finds tools.
pub(crate) const SEARCH_TOOLS: &str = "search_tools";
/// The tool that calls a tool found.
pub(crate) const CALL_TOOL: &str = "call_tool";

/// Tools per page of `search_tools`, unless asked otherwise; and at most.
const PAGE_SIZE: usize = 20;
const MAX_PAGE_SIZE: usize = 100;

/// The two tools of search mode, as a server in that mode resolves them.
pub(crate) struct ToolSearch {
    search: ToolRef,
    call: ToolRef,
}

impl ToolSearch {
    /// Search mode over the tools `registry` holds that `policy` offers, found for each
    /// caller as `scopes` let it call them (with authorization), listed as `confirm` says.
    pub(crate) fn new(
        registry: RegistryHandle,
        policy: Arc<Policy>,
        scopes: Option<Arc<ScopeNames>>,
        confirm: Confirm,
    ) -> ToolSearch {
        let mut schemas = SchemaCache::default();
        let finder = Finder {
            registry,
            policy,
            scopes,
            confirm,
        };
        let search = ToolInfo::of_own_tool(Arc::new(finder), &mut schemas)
            .expect("search_tools describes itself validly");
        let call = ToolInfo::of_own_tool(Arc::new(CallTool), &mut schemas)
            .expect("call_tool describes itself validly");
        ToolSearch {
            search: ToolRef::shared(Arc::new(search)),
            call: ToolRef::shared(Arc::new(call)),
        }
    }

    /// `search_tools` or `call_tool`, by name.
    pub(crate) fn tool(&self, name: &str) -> Option<ToolRef> {
        match name {
            SEARCH_TOOLS => Some(self.search.clone()),
            CALL_TOOL => Some(self.call.clone()),
            _ => None,
        }
    }

    /// A `call_tool` call made the call of the tool it names, with the arguments it gives.
    /// One whose arguments are not `{"name": …, "arguments": {…}}` stays a `call_tool` call,
    /// which its input schema answers.
    pub(crate) fn unwrap(params: &mut CallToolRequestParams) {
        if params.name != CALL_TOOL {
            return;
        }
        let Some(given) = params.arguments.as_mut() else {
            return;
        };
        let name = match given.get("name") {
            Some(Value::String(name)) if name != CALL_TOOL => name.clone(),
            _ => return,
        };
        let arguments = match given.get("arguments") {
            Some(Value::Object(arguments)) => Some(arguments.clone()),
            None | Some(Value::Null) => None,
            Some(_) => return,
        };
        if given.keys().any(|key| key != "name" && key != "arguments") {
            return;
        }
        params.name = name.into();
        params.arguments = arguments;
    }

    /// What `tools/list` gives in search mode for `offered` (the tools the policy offers):
    /// the two tools, `call_tool` with the hints of the most cautious tool it may reach (a
    /// client asks before a call that may delete when one offered tool deletes).
    pub(crate) fn listing(&self, offered: &[&ToolInfo]) -> Vec<Listed> {
        let mut call = self.call.mcp_tool().clone();
        // Nothing offered: nothing it can do.
        let calm = Hints {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        };
        let joined = offered.iter().fold(calm, |joined, tool| {
            let hints = tool.hints();
            Hints {
                read_only: joined.read_only && hints.read_only,
                destructive: joined.destructive || (!hints.read_only && hints.destructive),
                idempotent: joined.idempotent && hints.idempotent,
                open_world: joined.open_world || hints.open_world,
            }
        });
        let mut annotations = call.annotations.clone().unwrap_or_default();
        annotations.read_only_hint = Some(joined.read_only);
        annotations.destructive_hint = Some(joined.destructive);
        annotations.idempotent_hint = Some(joined.idempotent);
        annotations.open_world_hint = Some(joined.open_world);
        call.annotations = Some(annotations);
        vec![self.search.mcp_tool().clone(), call]
    }
}

/// `search_tools`: the offered tools the caller may call whose name, title or description
/// holds the query's words, most words first, with their listing (schema and hints).
struct Finder {
    registry: RegistryHandle,
    policy: Arc<Policy>,
    scopes: Option<Arc<ScopeNames>>,
    confirm: Confirm,
}

impl Tool for Finder {
    fn describe(&self) -> ToolDescription {
        let schema = json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to look for in a tool's name, title or description (any of them; the tools with the most first). Leave it out to list every tool."},
                "read_only": {"type": "boolean", "description": "Only tools that only read (true), or only tools that change something (false)."},
                "destructive": {"type": "boolean", "description": "Only tools that may delete or overwrite (true), or only those that may not (false)."},
                "open_world": {"type": "boolean", "description": "Only tools that reach outside the server (true), or only those that do not (false)."},
                "category": {"type": "string", "description": "Only tools of this category."},
                "tag": {"type": "string", "description": "Only tools with this tag."},
                "page_size": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "description": "Tools per page (default 20)."},
                "cursor": {"type": "string", "description": "The nextCursor of the previous page of the same search."}
            },
            "additionalProperties": false
        });
        let mut description = ToolDescription::new(
            SEARCH_TOOLS,
            "Find the tools of this server: each with its name, description, input schema and hints. Call one with call_tool.",
            schema.as_object().cloned().unwrap_or_default(),
            Hints::READ_ONLY.closed_world(),
        );
        description.about.title = Some("Search tools".to_owned());
        description
    }

    fn call(&self, arguments: JsonObject, context: &CallContext) -> ToolFuture {
        let found = self.find(&arguments, &context.caller);
        Box::pin(async move { found.map(|page| ToolOutput::new().structured(page)) })
    }
}

impl Finder {
    fn find(
        &self,
        arguments: &JsonObject,
        caller: &crate::context::Caller,
    ) -> Result<Value, ToolError> {
        let granted = caller.scopes();
        // Its schema is not compiled (`ToolInfo::of_own_tool`): the arguments are checked here.
        for (key, value) in arguments {
            let fits = match key.as_str() {
                "query" | "category" | "tag" | "cursor" => value.is_string(),
                "read_only" | "destructive" | "open_world" => value.is_boolean(),
                "page_size" => value.is_u64(),
                _ => {
                    return Err(ToolError::new(format!(
                        "search_tools takes no argument {key}: give query, read_only, destructive, open_world, category, tag, page_size or cursor"
                    )));
                }
            };
            if !fits {
                return Err(ToolError::new(format!(
                    "search_tools's {key} is {value}: give {}",
                    match key.as_str() {
                        "page_size" => "a whole number from 1 to 100",
                        "read_only" | "destructive" | "open_world" => "true or false",
                        _ => "a string",
                    }
                )));
            }
        }
        let text = |key: &str| arguments.get(key).and_then(Value::as_str);
        let flag = |key: &str| arguments.get(key).and_then(Value::as_bool);
        let words: Vec<String> = text("query")
            .unwrap_or_default()
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_owned)
            .collect();
        // The filters as the registry's own search reads them (the words are ranked below).
        let filters = Search {
            read_only: flag("read_only"),
            destructive: flag("destructive"),
            open_world: flag("open_world"),
            category: text("category").map(str::to_owned),
            tags: text("tag").map(str::to_owned).into_iter().collect(),
            ..Search::default()
        };
        let registry: Arc<Registry> = self.registry.current();
        let mut found: Vec<(usize, &ToolInfo)> = registry
            .tools()
            .iter()
            .map(|tool| &**tool)
            .filter(|tool| self.policy.allows(tool).is_ok() && tool.admits(caller))
            .filter(|tool| {
                self.scopes
                    .as_ref()
                    .is_none_or(|names| names.permits(tool, granted))
            })
            .filter(|tool| filters.matches(tool))
            .map(|tool| (score(tool, &words), tool))
            .filter(|(score, _)| words.is_empty() || *score > 0)
            .collect();
        found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name().cmp(b.1.name())));
        let size = match arguments.get("page_size").and_then(Value::as_u64) {
            Some(size @ 1..=100) => size as usize,
            Some(size) => {
                return Err(ToolError::new(format!(
                    "page_size {size} is out of range: ask for 1 to {MAX_PAGE_SIZE}"
                )));
            }
            None => PAGE_SIZE,
        };
        // A cursor holds for the same search of the same tools.
        let search: std::collections::BTreeMap<&String, String> = arguments
            .iter()
            .filter(|(key, _)| *key != "cursor")
            .map(|(key, value)| (key, value.to_string()))
            .collect();
        let scope = scope_of((SEARCH_TOOLS, search, registry.fingerprint()));
        let invalid = |_| {
            ToolError::new(
                "invalid cursor: pass the nextCursor of the previous page of the same search, unchanged",
            )
        };
        let start = match text("cursor") {
            Some(cursor) => decode_cursor(scope, cursor).map_err(invalid)?,
            None => 0,
        };
        let tools: Vec<&ToolInfo> = found.iter().map(|(_, tool)| *tool).collect();
        let (page, next) = paginate(&tools, start, size, scope).map_err(invalid)?;
        let listed: Vec<Value> = page
            .into_iter()
            .map(|tool| serde_json::to_value(self.confirm.listed(tool)).unwrap_or(Value::Null))
            .collect();
        let mut result = Map::new();
        result.insert("tools".into(), Value::Array(listed));
        result.insert("total".into(), found.len().into());
        if let Some(next) = next {
            result.insert("nextCursor".into(), Value::String(next));
        }
        Ok(Value::Object(result))
    }
}

/// How many of `words` a tool's name (its `_` as spaces), title or description holds.
fn score(tool: &ToolInfo, words: &[String]) -> usize {
    let hay = format!(
        "{} {} {}",
        tool.name().replace(['_', '-', '.'], " "),
        tool.header().title().unwrap_or_default(),
        tool.header().description()
    )
    .to_lowercase();
    words
        .iter()
        .filter(|word| hay.contains(word.as_str()))
        .count()
}

/// `call_tool`: what a client sends to call a tool it found. Its calls are unwrapped before
/// they reach it ([`ToolSearch::unwrap`]); only one that names `call_tool` itself gets here.
struct CallTool;

impl Tool for CallTool {
    fn describe(&self) -> ToolDescription {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name, as search_tools gave it."},
                "arguments": {"type": "object", "description": "Its arguments, as its input schema says."}
            },
            "required": ["name"],
            "additionalProperties": false
        });
        let mut description = ToolDescription::new(
            CALL_TOOL,
            "Call a tool that search_tools found, by its name, with its arguments. Its hints are those of the most cautious tool it may reach.",
            schema.as_object().cloned().unwrap_or_default(),
            Hints::DEFAULT,
        );
        description.about.title = Some("Call tool".to_owned());
        description
    }

    fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
        Box::pin(async {
            Err(ToolError::new(
                "call_tool calls another tool: give `name` (a tool search_tools found, not call_tool) and its `arguments` (an object), and nothing else",
            ))
        })
    }
}
