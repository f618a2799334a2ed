//! What an upstream's tool list becomes: the tools its `include` and `exclude` choose
//! (`choice.rs`), each under its served name, corrected by the
//! overrides, checked (a confirmation question naming only its arguments; every hint stated,
//! with `strict_hints`), calling through the upstream's link; and the registry of them, with
//! the pin applied. A tool that cannot be served as the upstream lists it (a name MCP does
//! not allow, a schema that is not an object's, a second tool of one name) is left out with
//! a warning that names it escaped, and the upstream's other tools are served.

use std::collections::HashSet;
use std::sync::Arc;

use toolsmith::{Registry, Tool};

use crate::cache::Cache;
use crate::link::Link;
use crate::overrides::{Confirmation, Override};
use crate::proxied::{Proxied, Via, stated};
use crate::reshape::Reshape;
use crate::{Error, Upstream};

/// An upstream's tools, as served.
pub(crate) type Tools = Vec<Arc<dyn Tool>>;

impl Upstream {
    /// Serves only its tools whose names (as the upstream lists them, before the prefix)
    /// match one of `patterns` (globs: `*`, `?`, `[a-z]`). Given again, the patterns add up.
    ///
    /// ```
    /// let notes = toolsmith_gateway::Upstream::stdio("notes", "notes-mcp")
    ///     .include(["search_*", "get_note"])
    ///     .exclude(["*_all"]);
    /// assert_eq!(notes.chosen_tools(), (&["search_*".to_owned(), "get_note".to_owned()][..], &["*_all".to_owned()][..]));
    /// ```
    pub fn include<I: IntoIterator<Item = S>, S: Into<String>>(mut self, patterns: I) -> Self {
        self.chosen
            .include
            .extend(patterns.into_iter().map(Into::into));
        self
    }

    /// Leaves out its tools whose names (as the upstream lists them) match one of
    /// `patterns`, even those an [`include`](Upstream::include) pattern matches. Given again,
    /// the patterns add up.
    ///
    /// ```
    /// let notes = toolsmith_gateway::Upstream::stdio("notes", "notes-mcp").exclude(["delete_*"]);
    /// assert_eq!(notes.chosen_tools().1, ["delete_*".to_owned()]);
    /// ```
    pub fn exclude<I: IntoIterator<Item = S>, S: Into<String>>(mut self, patterns: I) -> Self {
        self.chosen
            .exclude
            .extend(patterns.into_iter().map(Into::into));
        self
    }

    /// Its `include` and `exclude` patterns.
    pub fn chosen_tools(&self) -> (&[String], &[String]) {
        (&self.chosen.include, &self.chosen.exclude)
    }

    /// The tools of `listed`, as served (prefixed, corrected by the overrides, calling through
    /// `link`), and the upstream names of those left out (by `strict_hints`, or because a
    /// registry refuses them: an input schema that does not compile).
    pub(crate) fn mount(
        &self,
        listed: Vec<rmcp::model::Tool>,
        link: &Arc<Link>,
    ) -> Result<(Tools, Vec<String>), Error> {
        // An upstream that speaks the tasks extension: its tools may run as the gateway's
        // tasks (the upstream sees an ordinary call).
        let tasks = link.peer().ok().is_some_and(|(_, peer)| {
            peer.peer_info()
                .is_some_and(|info| info.capabilities.supports_tasks())
        });
        let via = listed
            .into_iter()
            .map(|tool| (tool, Via::Upstream(link.clone())))
            .collect();
        self.mount_via(via, tasks)
    }

    /// The tools of `listed`, each calling where its `Via` says, as served (see
    /// [`mount`](Self::mount)); `tasks`: whether they may run as tasks.
    pub(crate) fn mount_via(
        &self,
        listed: Vec<(rmcp::model::Tool, Via)>,
        tasks: bool,
    ) -> Result<(Tools, Vec<String>), Error> {
        let upstream: Arc<str> = Arc::from(self.name.as_str());
        let prefix = self.tool_prefix();
        let cache = self.cache_ttl.map(|ttl| Arc::new(Cache::new(ttl)));
        let mut left_out = Vec::new();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        let mut names = HashSet::new();
        let choice = self.chosen.compile(&self.name)?;
        // Every name served before renames: a new name may take none of them.
        let listed_names: HashSet<String> = listed
            .iter()
            .map(|(tool, _)| format!("{prefix}{}", tool.name))
            .collect();
        for (tool, via) in listed {
            let name = tool.name.to_string();
            if !choice.serves(&name) {
                tracing::debug!(upstream = %self.name, tool = %toolsmith_audit::shown(&name), "not served: its `include`/`exclude` leave it out");
                continue;
            }
            let served = format!("{prefix}{name}");
            if let Err(why) = servable(&served) {
                tracing::warn!(
                    upstream = %self.name,
                    tool = %toolsmith_audit::shown(&tool.name),
                    served = %toolsmith_audit::shown(&served),
                    "left out: its name {why}; the upstream's other tools are served"
                );
                continue;
            }
            if let Some(which) = not_an_object(&tool) {
                tracing::warn!(
                    upstream = %self.name,
                    tool = %tool.name,
                    "left out: its {which} schema is not an object schema (\"type\": \"object\")"
                );
                continue;
            }
            if !names.insert(served.clone()) {
                tracing::warn!(
                    upstream = %self.name,
                    tool = %tool.name,
                    "left out: the upstream lists a second tool of this name; the first is served"
                );
                continue;
            }
            let corrected = self.overrides.for_tool(&served);
            // Reshaped: its name, description and arguments as the client sees them.
            let (tool, reshape) = reshaped(tool, &served, &corrected)?;
            let served = match &corrected.name {
                Some(name) => {
                    servable(name).map_err(|why| Error::Overrides {
                        tool: served.clone(),
                        why: format!("its new name {name:?} {why}"),
                    })?;
                    if (listed_names.contains(name) && *name != served)
                        || !names.insert(name.clone())
                    {
                        return Err(Error::Overrides {
                            tool: served,
                            why: format!("its new name {name:?} is another tool's"),
                        });
                    }
                    name.clone()
                }
                None => served,
            };
            check_question(&tool, &served, &corrected)?;
            if corrected.upstream_confirms == Some(true) && matches!(via, Via::Api(_)) {
                tracing::warn!(
                    upstream = %self.name,
                    tool = %tool.name,
                    "`upstream_confirms = true` is ignored: an HTTP API cannot ask the user; the gateway's confirmation applies"
                );
            }
            let unstated = unstated_hints(&tool, &corrected);
            if self.strict_hints && !unstated.is_empty() {
                tracing::warn!(
                    upstream = %self.name,
                    tool = %tool.name,
                    unstated = %unstated.join(", "),
                    "left out: it does not state every hint (--strict-hints)"
                );
                left_out.push(tool.name.to_string());
                continue;
            }
            let proxied = Proxied::new(
                tool,
                served,
                corrected,
                upstream.clone(),
                via,
                self.call_timeout,
            );
            let proxied = proxied.tasks(tasks).reshaped(reshape);
            let proxied: Arc<dyn Tool> = match &cache {
                Some(cache) => Arc::new(proxied.cached(cache.clone())),
                None => Arc::new(proxied),
            };
            // What a registry refuses (an input schema its calls' arguments cannot be checked
            // against) is left out, not the whole upstream.
            if let Err(why) = Registry::new().add_shared(proxied.clone()) {
                tracing::warn!(upstream = %self.name, tool = %name, %why, "left out: it cannot be served");
                left_out.push(name);
                continue;
            }
            tools.push(proxied);
        }
        choice.warn_unmatched(&self.name);
        Ok((tools, left_out))
    }

    /// `tools` as a registry, with the pin applied.
    pub(crate) fn registry_of(&self, tools: &[Arc<dyn Tool>]) -> Result<Registry, Error> {
        let mut registry = Registry::new();
        for tool in tools {
            registry.add_shared(tool.clone()).map_err(Error::Tools)?;
        }
        match &self.pin {
            Some(pin) => Ok(pin.apply(registry)?.0),
            None => Ok(registry),
        }
    }
}

/// Whether `served`, an upstream tool's name as served, is a tool name MCP allows: 1 to 128
/// characters of `A-Z a-z 0-9 _ - .` (the runtime's rule), else what is wrong with it.
fn servable(served: &str) -> Result<(), String> {
    if served.is_empty() || served.len() > MAX_NAME {
        return Err(format!(
            "is not 1 to {MAX_NAME} characters long once prefixed"
        ));
    }
    match served
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some(c) => Err(format!(
            "holds '{}', which a tool name may not (only A-Z, a-z, 0-9, '_', '-' and '.')",
            c.escape_debug()
        )),
        None => Ok(()),
    }
}

/// Which of `tool`'s schemas is not an object schema (what MCP requires, and the runtime
/// refuses), if one is.
fn not_an_object(tool: &rmcp::model::Tool) -> Option<&'static str> {
    let object = |schema: &rmcp::model::JsonObject| {
        schema.get("type").and_then(|t| t.as_str()) == Some("object")
    };
    if !object(&tool.input_schema) {
        return Some("input");
    }
    match tool.output_schema.as_deref() {
        Some(output) if !object(output) => Some("output"),
        _ => None,
    }
}

/// The longest tool name MCP allows.
const MAX_NAME: usize = 128;

/// The hints `tool` leaves unstated (neither it nor an override says them), by their MCP
/// names.
fn unstated_hints(tool: &rmcp::model::Tool, corrected: &Override) -> Vec<&'static str> {
    let [read_only, destructive, idempotent, open_world] =
        stated(tool.annotations.as_ref(), corrected);
    [
        ("readOnlyHint", read_only.is_some()),
        // Meaningful only when it may write.
        (
            "destructiveHint",
            destructive.is_some() || read_only == Some(true),
        ),
        ("idempotentHint", idempotent.is_some()),
        ("openWorldHint", open_world.is_some()),
    ]
    .into_iter()
    .filter(|(_, stated)| !stated)
    .map(|(name, _)| name)
    .collect()
}

/// `tool` as `corrected` reshapes it (its description, its arguments' schema), and how to map
/// its calls' arguments back; an error names what does not fit.
fn reshaped(
    mut tool: rmcp::model::Tool,
    served: &str,
    corrected: &Override,
) -> Result<(rmcp::model::Tool, Option<Reshape>), Error> {
    if let Some(description) = &corrected.description {
        tool.description = Some(description.clone().into());
    }
    let Some(arguments) = &corrected.arguments else {
        return Ok((tool, None));
    };
    let (schema, reshape) =
        Reshape::of(&tool.input_schema, arguments).map_err(|why| Error::Overrides {
            tool: served.to_owned(),
            why,
        })?;
    tool.input_schema = Arc::new(schema);
    Ok((tool, (!reshape.is_empty()).then_some(reshape)))
}

/// An override's confirmation question may name only arguments `tool` takes: an error naming
/// the placeholder and the arguments there are.
fn check_question(
    tool: &rmcp::model::Tool,
    served: &str,
    corrected: &Override,
) -> Result<(), Error> {
    let Some(Confirmation::Question(question)) = &corrected.confirm else {
        return Ok(());
    };
    let arguments: Vec<&str> = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut rest = question.replace("{{", "").replace("}}", "");
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return Err(Error::Overrides {
                tool: served.to_owned(),
                why:
                    "its confirmation question opens a `{` it never closes: write `{{` for a brace"
                        .into(),
            });
        };
        let name = rest[open + 1..open + close].trim().to_owned();
        if !arguments.contains(&name.as_str()) {
            return Err(Error::Overrides {
                tool: served.to_owned(),
                why: format!(
                    "its confirmation question names {{{name}}}, which is not one of its arguments ({})",
                    if arguments.is_empty() {
                        "it takes none".to_owned()
                    } else {
                        arguments.join(", ")
                    }
                ),
            });
        }
        rest = rest[open + close + 1..].to_owned();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ToolAnnotations;

    fn tool(annotations: Option<ToolAnnotations>) -> rmcp::model::Tool {
        let mut tool = rmcp::model::Tool::new("t", "A tool.", Arc::new(Default::default()));
        tool.annotations = annotations;
        tool
    }

    #[test]
    fn a_name_mcp_does_not_allow_is_named_escaped() {
        assert!(servable("notes_get.v2-beta").is_ok());
        let why = servable("up_bad\u{1b}[2J\nname").unwrap_err();
        assert!(why.contains(r"holds '\u{1b}'"), "{why}");
        assert!(!why.contains('\u{1b}'), "{why}");
        assert!(servable("up_has space").unwrap_err().contains("' '"));
        assert!(servable(&"a".repeat(129)).unwrap_err().contains("1 to 128"));
        let mut stringy = tool(None);
        stringy.input_schema = Arc::new(
            serde_json::json!({"type": "string"})
                .as_object()
                .cloned()
                .unwrap(),
        );
        assert_eq!(not_an_object(&stringy), Some("input"));
        let mut object = stringy.clone();
        object.input_schema = Arc::new(
            serde_json::json!({"type": "object"})
                .as_object()
                .cloned()
                .unwrap(),
        );
        assert_eq!(not_an_object(&object), None);
    }

    #[test]
    fn the_hints_a_tool_leaves_unstated_are_named() {
        let unstated_hints = |tool: &rmcp::model::Tool| unstated_hints(tool, &Override::default());
        assert_eq!(
            unstated_hints(&tool(None)),
            [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint"
            ]
        );
        let mut reads = ToolAnnotations::default();
        reads.read_only_hint = Some(true);
        reads.idempotent_hint = Some(true);
        // A read-only tool need not say whether it destroys.
        assert_eq!(unstated_hints(&tool(Some(reads))), ["openWorldHint"]);
        let mut writes = ToolAnnotations::default();
        writes.read_only_hint = Some(false);
        writes.idempotent_hint = Some(false);
        writes.open_world_hint = Some(false);
        assert_eq!(unstated_hints(&tool(Some(writes))), ["destructiveHint"]);
    }
}
