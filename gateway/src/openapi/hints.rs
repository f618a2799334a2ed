//! The hints an operation states of itself, over those its HTTP method implies: under
//! `x-mcp-annotations` (the shape of MCP's `annotations`, as other tools write it) and under
//! `x-mcp-hints` (toolsmith's own), which wins a hint both state. The configuration's
//! overrides are applied later, over both (see `overrides.rs`).

use rmcp::model::ToolAnnotations;
use serde_json::{Map, Value};

/// The four hints, as MCP names them.
const HINTS: &str = "readOnlyHint, destructiveHint, idempotentHint or openWorldHint";

/// `annotations` (the method's) with what `operation` (shown as `GET /path`) states under
/// `x-mcp-annotations`, then under `x-mcp-hints`; an error names a value that is not true
/// or false, or a key of `x-mcp-hints` that is not a hint. A key of `x-mcp-annotations` that
/// is not one is left out with a warning: that extension is not toolsmith's to close.
pub(crate) fn stated(
    mut annotations: ToolAnnotations,
    operation: &Map<String, Value>,
    shown: &str,
) -> Result<ToolAnnotations, String> {
    if let Some(said) = operation
        .get("x-mcp-annotations")
        .and_then(Value::as_object)
    {
        for (key, value) in said {
            if key == "title" {
                let Some(title) = value.as_str() else {
                    return Err(format!("{shown}: `x-mcp-annotations.title` is not a text"));
                };
                annotations.title = Some(title.to_owned());
                continue;
            }
            match hint(annotations.clone(), key, value, "x-mcp-annotations", shown)? {
                Some(stated) => annotations = stated,
                None => tracing::warn!(
                    operation = %shown,
                    key = %key,
                    "`x-mcp-annotations.{key}` is not a hint the gateway reads: left out"
                ),
            }
        }
    }
    if let Some(said) = operation.get("x-mcp-hints").and_then(Value::as_object) {
        for (key, value) in said {
            annotations =
                hint(annotations, key, value, "x-mcp-hints", shown)?.ok_or_else(|| {
                    format!("{shown}: `x-mcp-hints.{key}` is not a hint: give {HINTS}")
                })?;
        }
    }
    Ok(annotations)
}

/// `annotations` with the hint `key` set to `value` (`None`: `key` is not a hint).
fn hint(
    annotations: ToolAnnotations,
    key: &str,
    value: &Value,
    within: &str,
    shown: &str,
) -> Result<Option<ToolAnnotations>, String> {
    let set: fn(ToolAnnotations, bool) -> ToolAnnotations = match key {
        "readOnlyHint" => ToolAnnotations::read_only,
        "destructiveHint" => ToolAnnotations::destructive,
        "idempotentHint" => ToolAnnotations::idempotent,
        "openWorldHint" => ToolAnnotations::open_world,
        _ => return Ok(None),
    };
    let Some(value) = value.as_bool() else {
        return Err(format!("{shown}: `{within}.{key}` is not true or false"));
    };
    Ok(Some(set(annotations, value)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stated_in(operation: Value) -> Result<ToolAnnotations, String> {
        // A POST's: destructive, not idempotent.
        let method = ToolAnnotations::new()
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(false);
        stated(method, operation.as_object().unwrap(), "POST /notes")
    }

    #[test]
    fn x_mcp_annotations_are_read_and_x_mcp_hints_win_a_hint_both_state() {
        let annotated = stated_in(json!({"x-mcp-annotations": {
            "destructiveHint": false, "idempotentHint": true, "title": "Add a note"
        }}))
        .unwrap();
        assert_eq!(annotated.destructive_hint, Some(false));
        assert_eq!(annotated.idempotent_hint, Some(true));
        assert_eq!(annotated.title.as_deref(), Some("Add a note"));
        // What the extension leaves unstated is the method's.
        assert_eq!(annotated.read_only_hint, Some(false));
        assert_eq!(annotated.open_world_hint, Some(false));

        let both = stated_in(json!({
            "x-mcp-annotations": {"destructiveHint": false, "openWorldHint": true},
            "x-mcp-hints": {"destructiveHint": true}
        }))
        .unwrap();
        assert_eq!(both.destructive_hint, Some(true));
        assert_eq!(both.open_world_hint, Some(true));
    }

    #[test]
    fn a_wrong_hint_says_what_is_wrong() {
        let err = stated_in(json!({"x-mcp-annotations": {"readOnlyHint": "yes"}})).unwrap_err();
        assert_eq!(
            err,
            "POST /notes: `x-mcp-annotations.readOnlyHint` is not true or false"
        );
        let err = stated_in(json!({"x-mcp-hints": {"readOnly": true}})).unwrap_err();
        assert!(
            err.contains("`x-mcp-hints.readOnly` is not a hint"),
            "{err}"
        );
        // Another tool's key in its extension is left out, not an error.
        let other = stated_in(json!({"x-mcp-annotations": {"costHint": "low"}})).unwrap();
        assert_eq!(other.destructive_hint, Some(true));
    }
}
