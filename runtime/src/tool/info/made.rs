//! A [`ToolInfo`] of a tool made by hand: its [`ToolDescription`] read once, when it is added,
//! and checked.

use std::sync::Arc;

use serde_json::Value;

use super::{Parts, Run, SchemaCache, ToolInfo};
use crate::tool::ToolDescription;
use crate::tool::dynamic::Tool as DynTool;
use crate::tool::names::{check_tool_name, made_header, made_timeout};
use crate::tool::place::Place;
use crate::tool::validate;

impl ToolInfo {
    /// A tool made by hand: its description read once and checked (its name, its hints, its
    /// input schema, compiled to check calls' arguments, its icons' schemes).
    pub(crate) fn of_tool(
        tool: Arc<dyn DynTool>,
        schemas: &mut SchemaCache,
    ) -> Result<Self, String> {
        ToolInfo::made::<true>(tool, schemas)
    }

    /// [`ToolInfo::of_tool`] for a tool of the server's own that checks its arguments itself
    /// (search mode's): its input schema is not compiled, so that a program that never adds
    /// a tool by hand does not carry a JSON Schema validator for it.
    pub(crate) fn of_own_tool(
        tool: Arc<dyn DynTool>,
        schemas: &mut SchemaCache,
    ) -> Result<Self, String> {
        ToolInfo::made::<false>(tool, schemas)
    }

    /// A tool made by hand, its input schema compiled to check calls' arguments when
    /// `CHECKED` (a constant: the validator is not linked in where only the other is made).
    fn made<const CHECKED: bool>(
        tool: Arc<dyn DynTool>,
        schemas: &mut SchemaCache,
    ) -> Result<Self, String> {
        let ToolDescription {
            about,
            input_schema,
            output_schema,
            hints,
            category,
            tags,
            confirms,
            confirm_message,
            upstream_confirms,
            task,
            max_concurrency,
            asks_client,
            meta,
            audience,
        } = tool.describe();
        let name = about.name.as_str();
        check_tool_name(name)?;
        if hints.read_only && hints.destructive {
            // `#[tool]`'s compile error, and `audit`'s.
            return Err(format!(
                "tool '{name}': `destructive` contradicts `read_only`: a read-only tool changes nothing, so it cannot be destructive; remove one"
            ));
        }
        if !is_object_schema(&input_schema) {
            return Err(format!(
                "the input schema of tool '{name}' must be an object schema: give it \"type\": \"object\""
            ));
        }
        // Compiled once, here (or shared, with the schema, with a tool whose schema is the
        // same).
        let (input, check) = match CHECKED {
            true => {
                let check = validate::compiled(name, input_schema)?;
                (check.schema().clone(), Some(check))
            }
            false => (Arc::new(input_schema), None),
        };
        if output_schema.as_ref().is_some_and(|o| !is_object_schema(o)) {
            return Err(format!(
                "the output schema of tool '{name}' must be an object schema: give it \"type\": \"object\""
            ));
        }
        let timeout = made_timeout("tool", name, about.timeout)?;
        if max_concurrency == Some(0) {
            return Err(format!(
                "tool '{name}' allows 0 calls at once: give max_concurrency of 1 or more"
            ));
        }
        let header = made_header(about);
        let parts = Parts {
            name: header.name(),
            title: header.title(),
            description: header.description(),
            hints,
            input,
            output: output_schema.map(|output| schemas.share(output)),
            icons: header.icons(),
            category: category.as_deref(),
            tags: &tags,
        };
        Ok(ToolInfo {
            tool: with_own_meta(parts.mcp_tool(), meta),
            header,
            hints,
            category,
            tags,
            confirms,
            upstream_confirms,
            confirm_message: confirm_message.map(Arc::from),
            task,
            timeout,
            max_concurrency,
            wrapped: false,
            expected: Vec::new(),
            asks: asks_client,
            check,
            audience: audience.map(Arc::new),
            // Its calls are async: they run where they were read, under the first step's watch.
            place: Arc::new(Place::of(false, false)),
            run: Run::Dynamic(tool),
        })
    }
}

/// `listed` with the `_meta` its description gives: toolsmith's own keys are the server's
/// to say (its category and tags, already set, kept over it; whether it is confirmed, set
/// when it is listed), never the description's.
fn with_own_meta(
    mut listed: rmcp::model::Tool,
    meta: Option<rmcp::model::JsonObject>,
) -> rmcp::model::Tool {
    let Some(mut meta) = meta else {
        return listed;
    };
    for own in [
        crate::tool::META_CATEGORY,
        crate::tool::META_TAGS,
        crate::tool::META_CONFIRMS,
    ] {
        meta.remove(own);
    }
    if let Some(own) = listed.meta.take() {
        meta.extend(own.0);
    }
    if !meta.is_empty() {
        listed = listed.with_meta(rmcp::model::MetaObject(meta));
    }
    listed
}

/// Whether `schema` says `"type": "object"`.
fn is_object_schema(schema: &rmcp::model::JsonObject) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}
