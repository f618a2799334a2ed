//! An OpenAPI schema as a portable JSON Schema, as toolsmith's own tool schemas are: no
//! OpenAPI-only keywords, no `null` alternatives (an optional value is left out of
//! `required` instead), one `type` per value, only standard `format`s, no bare booleans.

use serde_json::{Map, Value, json};

// The `format` values JSON Schema 2020-12 defines: OpenAPI's own (`int32`, `int64`,
// `float`, `double`, `byte`, `binary`, `password`) are dropped, as clients warn about them.
use toolsmith_audit::STANDARD_FORMATS;

/// Keywords of OpenAPI's schema object that are not JSON Schema's.
const OPENAPI_ONLY: &[&str] = &[
    "nullable",
    "discriminator",
    "xml",
    "externalDocs",
    "example",
    "readOnly",
    "writeOnly",
];

/// Keywords whose value is a map of schemas.
const SCHEMA_MAPS: &[&str] = &["properties", "patternProperties", "$defs", "definitions"];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value is one schema.
const SCHEMA_ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
];

/// `schema` made portable (see the module's documentation).
pub(crate) fn portable(schema: &Value) -> Value {
    match schema {
        Value::Bool(true) => json!({}),
        Value::Bool(false) => json!({"not": {}}),
        Value::Object(object) => Value::Object(portable_object(object)),
        other => other.clone(),
    }
}

/// An answer's schema made portable: as [`portable`], without the properties marked
/// `writeOnly` (an answer never holds them), and a property that may be `null` is no longer
/// required (a call leaves a `null` out of the answer, see `call.rs`).
pub(crate) fn portable_output(schema: &Value) -> Value {
    portable(&nulls_optional(&without_marked(schema, "writeOnly")))
}

/// A request body's schema made portable: as [`portable`], without the properties marked
/// `readOnly` (the API sets them; a request does not send them).
pub(crate) fn portable_request(schema: &Value) -> Value {
    portable(&without_marked(schema, "readOnly"))
}

/// `schema` without the properties (at any depth) whose schema says `marker: true`, and
/// without them in `required`.
fn without_marked(schema: &Value, marker: &str) -> Value {
    let marked = |s: &Value| s.get(marker) == Some(&Value::Bool(true));
    match schema {
        Value::Object(object) => {
            let mut out: Map<String, Value> = object
                .iter()
                .map(|(key, value)| (key.clone(), without_marked(value, marker)))
                .collect();
            if let Some(Value::Object(properties)) = object.get("properties") {
                let gone: Vec<&String> = properties
                    .iter()
                    .filter(|(_, property)| marked(property))
                    .map(|(name, _)| name)
                    .collect();
                if let Some(Value::Object(kept)) = out.get_mut("properties") {
                    kept.retain(|name, _| !gone.contains(&name));
                }
                if let Some(Value::Array(required)) = out.get_mut("required") {
                    required.retain(|name| {
                        !name.as_str().is_some_and(|n| gone.iter().any(|g| *g == n))
                    });
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|i| without_marked(i, marker)).collect())
        }
        other => other.clone(),
    }
}

/// `schema` with every property that allows `null` left out of its object's `required`.
fn nulls_optional(schema: &Value) -> Value {
    match schema {
        Value::Object(object) => {
            let mut out: Map<String, Value> = object
                .iter()
                .map(|(key, value)| (key.clone(), nulls_optional(value)))
                .collect();
            if let (Some(Value::Object(properties)), Some(Value::Array(required))) =
                (object.get("properties"), object.get("required"))
            {
                let kept: Vec<Value> = required
                    .iter()
                    .filter(|name| {
                        let property = name.as_str().and_then(|n| properties.get(n));
                        !property.is_some_and(allows_null)
                    })
                    .cloned()
                    .collect();
                out.insert("required".into(), Value::Array(kept));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(nulls_optional).collect()),
        other => other.clone(),
    }
}

/// Whether `schema` lets a value be `null` (`type: null` or among its types, `nullable`,
/// an `anyOf`/`oneOf` null branch).
fn allows_null(schema: &Value) -> bool {
    let is_null = |t: &Value| t.as_str() == Some("null");
    match schema.get("type") {
        Some(Value::Array(types)) if types.iter().any(is_null) => return true,
        Some(t) if is_null(t) => return true,
        _ => {}
    }
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        schema
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(allows_null))
    })
}

fn portable_object(object: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::with_capacity(object.len());
    for (key, value) in object {
        let key = key.as_str();
        if OPENAPI_ONLY.contains(&key) || key.starts_with("x-") {
            continue;
        }
        let value = match (key, value) {
            ("format", Value::String(format)) if !STANDARD_FORMATS.contains(&format.as_str()) => {
                continue;
            }
            (_, Value::Object(map)) if SCHEMA_MAPS.contains(&key) => Value::Object(
                map.iter()
                    .map(|(name, sub)| (name.clone(), portable(sub)))
                    .collect(),
            ),
            (_, Value::Array(list)) if SCHEMA_LISTS.contains(&key) => {
                Value::Array(list.iter().map(portable).collect())
            }
            // `additionalProperties: true` says what it means; a schema stands elsewhere.
            ("additionalProperties", Value::Bool(_)) => value.clone(),
            (_, sub) if SCHEMA_ONE.contains(&key) => portable(sub),
            _ => value.clone(),
        };
        out.insert(key.to_owned(), value);
    }
    without_null(&mut out);
    exclusive_bounds(&mut out);
    integers(&mut out);
    out
}

/// Keywords whose value is a count: an integer whatever the schema's type.
const COUNTS: &[&str] = &[
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minContains",
    "maxContains",
];

/// Keywords whose value is one of the schema's values, or a bound of them.
const VALUED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "default",
    "const",
];

/// A count, and an integer schema's bounds and values, written as the integers they are
/// when the document writes them as floats (`minimum: 3000.0`, as some generators do, or
/// YAML's `3e3`): a client shows `3000`, never `3000.0`, for an integer's bound.
fn integers(object: &mut Map<String, Value>) {
    let integer = object.get("type").and_then(Value::as_str) == Some("integer");
    for (key, value) in object.iter_mut() {
        if COUNTS.contains(&key.as_str()) || (integer && VALUED.contains(&key.as_str())) {
            integral(value);
        } else if integer
            && key == "enum"
            && let Value::Array(items) = value
        {
            items.iter_mut().for_each(integral);
        }
    }
}

/// `value` as an integer when it is a float without a fraction that an f64 holds exactly.
fn integral(value: &mut Value) {
    // Integers of at most 2^53 are exact in an f64: past it, a float stays one.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if let Value::Number(number) = value
        && let Some(float) = number.as_f64().filter(|_| number.is_f64())
        && float.fract() == 0.0
        && float.abs() <= EXACT
    {
        *value = Value::from(float as i64);
    }
}

/// `type: [T, "null"]` as `type: T`; `anyOf`/`oneOf` null branches left out (one branch
/// left: merged into the schema).
fn without_null(object: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = object.get("type") {
        let kept: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        match kept.len() {
            0 => {
                object.remove("type");
            }
            1 => {
                object.insert("type".into(), kept[0].clone());
            }
            _ => {
                object.remove("type");
                let branches = kept.into_iter().map(|t| json!({"type": t})).collect();
                object.insert("anyOf".into(), Value::Array(branches));
            }
        }
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = object.get(key) else {
            continue;
        };
        let kept: Vec<Value> = branches
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            .cloned()
            .collect();
        if kept.len() == branches.len() {
            continue;
        }
        object.remove(key);
        match kept.as_slice() {
            [] => {}
            [one] => {
                if let Value::Object(one) = one {
                    for (k, v) in one {
                        object.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            }
            _ => {
                object.insert(key.into(), Value::Array(kept));
            }
        }
    }
}

/// OpenAPI 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` (a flag on `minimum`) as
/// JSON Schema's numbers.
fn exclusive_bounds(object: &mut Map<String, Value>) {
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if let Some(Value::Bool(exclusive)) = object.get(flag).cloned() {
            object.remove(flag);
            if exclusive && let Some(value) = object.remove(bound) {
                object.insert(flag.into(), value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openapi_schemas_become_portable() {
        let fastapi = json!({
            "anyOf": [{"type": "string", "maxLength": 10}, {"type": "null"}],
            "title": "Tag"
        });
        assert_eq!(
            portable(&fastapi),
            json!({"type": "string", "maxLength": 10, "title": "Tag"})
        );
        let three_o = json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer", "format": "int64", "nullable": true,
                      "minimum": 0, "exclusiveMinimum": true, "example": 3},
                "when": {"type": "string", "format": "date-time"},
                "any": true
            },
            "x-internal": 1
        });
        assert_eq!(
            portable(&three_o),
            json!({
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "exclusiveMinimum": 0},
                    "when": {"type": "string", "format": "date-time"},
                    "any": {}
                }
            })
        );
        let answer = json!({"type": "object", "required": ["id", "tag"], "properties": {
            "id": {"type": "integer"},
            "tag": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        }});
        assert_eq!(
            portable_output(&answer),
            json!({"type": "object", "required": ["id"], "properties": {
                "id": {"type": "integer"}, "tag": {"type": "string"}
            }})
        );
        // A property the API sets is not sent; one it is sent is not answered.
        let note = json!({"type": "object", "required": ["id", "title", "secret"], "properties": {
            "id": {"type": "integer", "readOnly": true},
            "title": {"type": "string"},
            "secret": {"type": "string", "writeOnly": true}
        }});
        assert_eq!(
            portable_request(&note),
            json!({"type": "object", "required": ["title", "secret"], "properties": {
                "title": {"type": "string"}, "secret": {"type": "string"}
            }})
        );
        assert_eq!(
            portable_output(&note),
            json!({"type": "object", "required": ["id", "title"], "properties": {
                "id": {"type": "integer"}, "title": {"type": "string"}
            }})
        );
        // Integers written as floats are integers again; a number's own floats stay.
        let port = json!({"type": "integer", "minimum": 3000.0, "maximum": 65535.0,
                          "default": 8080.0, "enum": [3000.0, 8080]});
        let port = portable(&port);
        assert_eq!(
            port.to_string(),
            r#"{"type":"integer","minimum":3000,"maximum":65535,"default":8080,"enum":[3000,8080]}"#
        );
        let ratio = portable(&json!({"type": "number", "minimum": 1.0, "exclusiveMaximum": 2.5}));
        assert_eq!(
            ratio.to_string(),
            r#"{"type":"number","minimum":1.0,"exclusiveMaximum":2.5}"#
        );
        let name = portable(&json!({"type": "string", "maxLength": 64.0}));
        assert_eq!(name.to_string(), r#"{"type":"string","maxLength":64}"#);
        let nullable = portable(&json!({"type": ["integer", "null"], "minimum": 1.0}));
        assert_eq!(nullable.to_string(), r#"{"type":"integer","minimum":1}"#);
        assert_eq!(
            portable(&json!({"type": ["integer", "string", "null"]})),
            json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
        );
    }
}
