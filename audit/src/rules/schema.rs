//! Input and output schemas: objects at the root, in JSON Schema 2020-12. Their subschemas
//! are checked by [`portable`](super::portable).

use serde_json::Value;

use crate::finding::Finding;

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

pub(super) fn check(name: &str, tool: &Value, findings: &mut Vec<Finding>) {
    let input = tool.get("inputSchema");
    if input.and_then(|s| s.get("type")).and_then(Value::as_str) != Some("object") {
        findings.push(
            Finding::new(
                "input-schema-not-object",
                Some(name),
                "the input schema is not `{\"type\": \"object\", ...}`: clients refuse the tool or cannot send arguments",
                "give the tool `inputSchema: {\"type\": \"object\", \"properties\": {...}}` (with no parameters, `{\"type\": \"object\"}`)",
            )
            .at("inputSchema".into()),
        );
    }
    let output = tool.get("outputSchema").filter(|s| !s.is_null());
    if let Some(output) = output
        && output.get("type").and_then(Value::as_str) != Some("object")
    {
        findings.push(
            Finding::new(
                "output-schema-not-object",
                Some(name),
                "the output schema is not `{\"type\": \"object\", ...}`: structured content must be an object",
                "wrap the result in an object, e.g. `{\"type\": \"object\", \"properties\": {\"result\": ...}}`",
            )
            .at("outputSchema".into()),
        );
    }
    for (kind, schema) in [("inputSchema", input), ("outputSchema", output)] {
        let Some(schema) = schema else { continue };
        if let Some(dialect) = schema.get("$schema").and_then(Value::as_str)
            && dialect.trim_end_matches('#') != DRAFT_2020_12
        {
            findings.push(
                Finding::new(
                    "schema-draft",
                    Some(name),
                    format!("the schema names the dialect {dialect:?}; MCP clients expect JSON Schema 2020-12"),
                    "write JSON Schema 2020-12 and drop `$schema` (or set it to https://json-schema.org/draft/2020-12/schema)",
                )
                .at(format!("{kind}.$schema")),
            );
        }
        super::portable::check(name, kind, schema, findings);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::rules::test_support::*;

    fn input(schema: Value) -> Vec<&'static str> {
        codes(&[with("get_note", "inputSchema", Some(schema))])
    }

    #[test]
    fn input_schema_not_object() {
        assert!(input(json!({"type": "object"})).is_empty());
        assert_eq!(
            input(json!({"properties": {"a": {"type": "string"}}})),
            ["input-schema-not-object"]
        );
        assert_eq!(
            codes(&[with("get_note", "inputSchema", None)]),
            ["input-schema-not-object"]
        );
    }

    #[test]
    fn output_schema_not_object() {
        let object = with("get_note", "outputSchema", Some(json!({"type": "object"})));
        assert!(codes(&[object]).is_empty());
        let array = with(
            "get_note",
            "outputSchema",
            Some(json!({"type": "array", "items": {"type": "string"}})),
        );
        assert_eq!(codes(&[array]), ["output-schema-not-object"]);
    }

    #[test]
    fn schema_draft() {
        assert!(
            input(
                json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"})
            )
            .is_empty()
        );
        assert_eq!(
            input(json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})),
            ["schema-draft"]
        );
    }
}
