//! The portability rules the MCP Inspector's `--strict` mode applies to every subschema
//! (boolean schemas, type unions, remote references, untyped subschemas; as in its
//! core/json/schemaLint.ts), plus `null` unions.

use serde_json::{Map, Value};

use crate::finding::Finding;

/// Subschemas were written this deep at most; past it the walk stops (as the Inspector's).
const MAX_DEPTH: usize = 64;

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "$defs",
    "definitions",
];
/// Keywords where `true`/`false` is ordinary.
const BOOLEAN_VALUED: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];
/// Keywords that constrain a value (`if` counts only with `then` or `else`).
const CONSTRAINING: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];

/// Checks `schema` (the tool's `kind`, `inputSchema` or `outputSchema`) and its subschemas.
pub(super) fn check(name: &str, kind: &str, schema: &Value, findings: &mut Vec<Finding>) {
    let mut walk = Walk {
        name,
        kind,
        has_ids: declares_id(schema, 0),
        findings,
    };
    walk.node(schema, kind.to_owned(), None, 0);
}

fn child(parent: &str, key: &str) -> String {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        format!("{parent}.{key}")
    } else {
        format!("{parent}[{key:?}]")
    }
}

/// Every subschema of `node`: (value, path, keyword).
fn subschemas<'a>(
    node: &'a Map<String, Value>,
    path: &str,
) -> Vec<(&'a Value, String, &'static str)> {
    let mut out = Vec::new();
    for &key in MAP {
        if let Some(Value::Object(map)) = node.get(key) {
            for (name, sub) in map {
                out.push((sub, child(&child(path, key), name), key));
            }
        }
    }
    for &key in LIST {
        if let Some(Value::Array(list)) = node.get(key) {
            for (i, sub) in list.iter().enumerate() {
                out.push((sub, format!("{}[{i}]", child(path, key)), key));
            }
        }
    }
    for &key in ONE {
        match node.get(key) {
            Some(Value::Array(list)) if key == "items" => {
                for (i, sub) in list.iter().enumerate() {
                    out.push((sub, format!("{}[{i}]", child(path, key)), key));
                }
            }
            Some(sub) => out.push((sub, child(path, key), key)),
            None => {}
        }
    }
    out
}

fn declares_id(node: &Value, depth: usize) -> bool {
    let Some(object) = node.as_object().filter(|_| depth <= MAX_DEPTH) else {
        return false;
    };
    object
        .get("$id")
        .and_then(Value::as_str)
        .is_some_and(|id| !id.is_empty())
        || subschemas(object, "")
            .iter()
            .any(|(sub, _, _)| declares_id(sub, depth + 1))
}

struct Walk<'a> {
    name: &'a str,
    kind: &'a str,
    has_ids: bool,
    findings: &'a mut Vec<Finding>,
}

impl Walk<'_> {
    fn add(&mut self, code: &str, path: String, message: String, fix: &str) {
        self.findings
            .push(Finding::new(code, Some(self.name), message, fix).at(path));
    }

    fn node(&mut self, node: &Value, path: String, keyword: Option<&str>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let object = match node {
            Value::Bool(b) => {
                if !keyword.is_some_and(|k| BOOLEAN_VALUED.contains(&k)) {
                    self.add(
                        "schema-boolean",
                        path,
                        format!("a bare `{b}` stands where a schema object is expected"),
                        if *b { "declare what the value is, e.g. {\"type\": \"object\", \"additionalProperties\": true}" } else { "write the always-false schema as {\"not\": {}}" },
                    );
                }
                return;
            }
            Value::Object(object) => object,
            _ => return,
        };
        self.lint(object, &path, keyword, depth);
        for (sub, sub_path, sub_keyword) in subschemas(object, &path) {
            self.node(sub, sub_path, Some(sub_keyword), depth + 1);
        }
    }

    fn lint(&mut self, node: &Map<String, Value>, path: &str, keyword: Option<&str>, depth: usize) {
        if let Some(Value::Array(types)) = node.get("type") {
            let types: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            if types.contains(&"null") {
                self.null_union(path);
            } else {
                self.add(
                    "schema-type-union",
                    path.to_owned(),
                    format!("`type` is an array ({}): clients that map schemas to one type per value reject it or drop the constraint", types.join(", ")),
                    "split it into `anyOf` branches with one `type` each",
                );
            }
        }
        for key in ["anyOf", "oneOf"] {
            let null_branch = node
                .get(key)
                .and_then(Value::as_array)
                .is_some_and(|branches| {
                    branches
                        .iter()
                        .any(|b| b.get("type").and_then(Value::as_str) == Some("null"))
                });
            if null_branch {
                self.null_union(path);
            }
        }
        if let Some(reference) = node.get("$ref").and_then(Value::as_str)
            && !reference.is_empty()
            && !reference.starts_with('#')
            && !self.has_ids
        {
            self.add(
                "schema-remote-ref",
                path.to_owned(),
                format!("`$ref` points outside the schema ({reference}): clients do not fetch remote schemas"),
                "inline the referenced schema, or move it into `$defs` and refer to it as #/$defs/NAME",
            );
        }
        let constrains = node.keys().any(|k| CONSTRAINING.contains(&k.as_str()))
            || (node.contains_key("if")
                && (node.contains_key("then") || node.contains_key("else")));
        // The root's own rule is `input-schema-not-object`.
        if !constrains && keyword != Some("not") && depth > 0 {
            self.add(
                "schema-untyped",
                path.to_owned(),
                "the subschema has no validation keyword: it accepts any value, and a model has nothing to go by".into(),
                "declare what the value is, e.g. {\"type\": \"string\"}",
            );
        }
    }

    fn null_union(&mut self, path: &str) {
        let message = format!(
            "the {} value may be null: dialects with one type per value (Gemini's OpenAPI subset) cannot say so",
            if self.kind == "inputSchema" {
                "argument"
            } else {
                "result"
            }
        );
        self.add(
            "schema-null-union",
            path.to_owned(),
            message,
            "leave an optional property out of `required` instead of allowing null",
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::rules::test_support::*;

    fn property(schema: Value) -> Vec<&'static str> {
        codes(&[with(
            "get_note",
            "inputSchema",
            Some(json!({"type": "object", "properties": {"p": schema}})),
        )])
    }

    fn input(schema: Value) -> Vec<&'static str> {
        codes(&[with("get_note", "inputSchema", Some(schema))])
    }

    #[test]
    fn schema_boolean() {
        assert!(input(json!({"type": "object", "additionalProperties": false})).is_empty());
        assert_eq!(property(json!(true)), ["schema-boolean"]);
        assert_eq!(
            property(json!({"type": "array", "items": false})),
            ["schema-boolean"]
        );
    }

    #[test]
    fn schema_type_union() {
        assert!(property(json!({"type": "string"})).is_empty());
        assert_eq!(
            property(json!({"type": ["string", "integer"]})),
            ["schema-type-union"]
        );
    }

    #[test]
    fn schema_null_union() {
        assert!(property(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})).is_empty());
        assert_eq!(
            property(json!({"type": ["string", "null"]})),
            ["schema-null-union"]
        );
        assert_eq!(
            property(json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null})),
            ["schema-null-union"]
        );
        let findings = crate::audit(&[with(
            "get_note",
            "inputSchema",
            Some(json!({"type": "object", "properties": {"p": {"type": ["string", "null"]}}})),
        )]);
        assert_eq!(
            findings[0].path.as_deref(),
            Some("inputSchema.properties.p")
        );
    }

    #[test]
    fn schema_remote_ref() {
        let local = json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "$defs": {"P": {"type": "string"}}});
        assert!(input(local).is_empty());
        assert_eq!(
            property(json!({"$ref": "https://example.com/p.json"})),
            ["schema-remote-ref"]
        );
    }

    #[test]
    fn schema_untyped() {
        assert!(property(json!({"type": "string", "description": "A name."})).is_empty());
        assert_eq!(
            property(json!({"description": "Anything at all."})),
            ["schema-untyped"]
        );
        assert!(
            property(json!({"not": {}})).is_empty(),
            "`not: {{}}` is the always-false schema"
        );
    }
}
