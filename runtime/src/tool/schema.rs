//! JSON Schemas for tool inputs and outputs, generated once with schemars.
//!
//! The schemas are portable across MCP clients: JSON Schema 2020-12 without a `$schema` key,
//! subschemas inlined (only recursive types keep a `$ref` into `$defs`), an `Option<T>`
//! parameter described by `T`'s schema and simply left out of `required`. A tool declared
//! with `json_schema = "2020-12"` gets an input schema that names its dialect (`$schema`)
//! and keeps every named subschema in `$defs`, for clients that validate that strictly.

use schemars::transform::{RecursiveTransform, Transform};
use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value, json};

use crate::tool::param::ParamDef;

/// A JSON object, as schemas and tool arguments are: the one re-exported as
/// `toolsmith::JsonObject`.
pub use super::JsonObject;

/// The key that tells FastMCP-style clients that the real result sits under `result`.
pub const WRAP_RESULT_KEY: &str = "x-fastmcp-wrap-result";

// The `format` values JSON Schema 2020-12 defines: schemars also writes Rust-flavoured ones
// (`uint64`, `int32`, `double`, ...) that validators such as Ajv warn about; those are dropped
// (the `minimum`/`maximum` that carry the same bounds stay).
use toolsmith_audit::STANDARD_FORMATS;

/// Drops non-standard `format` keywords from `schema` and every subschema, and writes a
/// bare `true` subschema (what schemars gives `serde_json::Value`) as `{}`: the MCP
/// Inspector's `--strict` mode, and `toolsmith audit`, refuse a boolean where a schema object
/// is expected (`additionalProperties: true` and the like stay).
fn make_portable(schema: &mut Schema) {
    fn portable(schema: &mut Schema) {
        let nonstandard = schema
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|f| !STANDARD_FORMATS.contains(&f));
        if nonstandard {
            schema.remove("format");
        }
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let any = |value: &mut Value| {
            if *value == Value::Bool(true) {
                *value = Value::Object(Map::new());
            }
        };
        for (key, value) in object.iter_mut() {
            match (key.as_str(), value) {
                ("properties" | "patternProperties" | "$defs", Value::Object(map)) => {
                    map.values_mut().for_each(any)
                }
                ("prefixItems" | "allOf" | "anyOf" | "oneOf" | "items", Value::Array(list)) => {
                    list.iter_mut().for_each(any)
                }
                ("items" | "contains" | "propertyNames" | "then" | "else", value) => any(value),
                _ => {}
            }
        }
    }
    RecursiveTransform(portable).transform(schema);
}

/// [`make_portable`] for a schema held as a JSON object.
fn portable_object(object: JsonObject) -> JsonObject {
    let mut schema = Schema::from(object);
    make_portable(&mut schema);
    match Value::from(schema) {
        Value::Object(object) => object,
        _ => unreachable!("an object schema stays an object"),
    }
}

fn generator() -> SchemaGenerator {
    generator_of(false)
}

/// The generator; `declared`: subschemas in `$defs` rather than inlined.
fn generator_of(declared: bool) -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = !declared;
        })
        .into_generator()
}

/// The `$schema` of an input schema that declares its dialect.
pub(crate) const DIALECT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The schema of one parameter type (used by `#[tool]`-generated code).
#[doc(hidden)]
pub fn param<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// A tool's output schema, and whether the value is wrapped as `{"result": value}`.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct OutputSchema {
    pub(crate) schema: JsonObject,
    pub(crate) wrapped: bool,
}

/// The output schema of a return type `T` (used by `#[tool]`-generated code).
///
/// An object type is used as it is; anything else is wrapped under `result`.
#[doc(hidden)]
pub fn output<T: JsonSchema>() -> OutputSchema {
    let root = generator().into_root_schema_for::<T>();
    if let Some(object) = root.as_object()
        && object.get("type").and_then(Value::as_str) == Some("object")
    {
        return OutputSchema {
            schema: portable_object(object.clone()),
            wrapped: false,
        };
    }
    let mut generator = generator();
    let inner = generator.subschema_for::<T>();
    let mut properties = Map::new();
    properties.insert("result".into(), Value::from(inner));
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), json!(["result"]));
    schema.insert(WRAP_RESULT_KEY.into(), true.into());
    add_definitions(&mut schema, &mut generator);
    OutputSchema {
        schema: portable_object(schema),
        wrapped: true,
    }
}

/// The input schema of a tool's arguments (context parameters are left out), and for each
/// parameter a short phrase saying what it expects ("a string", "an array", ...) for argument
/// error messages (empty for a context parameter).
pub(crate) fn input(params: &[ParamDef]) -> (JsonObject, Vec<String>) {
    input_of(params, false)
}

/// The input schema of arguments that are all strings (`name`, `description`, `required`):
/// a resource template's variables, a hand-written prompt's arguments.
pub(crate) fn strings_input<'a>(
    arguments: impl IntoIterator<Item = (&'a str, Option<&'a str>, bool)>,
) -> JsonObject {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for (name, description, needed) in arguments {
        let mut property = Map::new();
        property.insert("type".into(), "string".into());
        if let Some(description) = description {
            property.insert("description".into(), description.into());
        }
        properties.insert(name.to_owned(), Value::Object(property));
        if needed {
            required.push(Value::from(name));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), Value::Array(required));
    schema.insert("additionalProperties".into(), false.into());
    schema
}

/// [`input`]; `declared`: the schema names its dialect and keeps its subschemas in `$defs`.
pub(crate) fn input_of(params: &[ParamDef], declared: bool) -> (JsonObject, Vec<String>) {
    let mut generator = generator_of(declared);
    let mut properties = Map::new();
    let mut required = Vec::new();
    let arguments: Vec<bool> = params.iter().map(ParamDef::is_argument).collect();
    for param in params
        .iter()
        .zip(&arguments)
        .filter_map(|(p, &a)| a.then_some(p))
    {
        let mut schema = (param.schema)(&mut generator);
        if let Some(description) = param.description {
            schema.insert("description".into(), description.into());
        }
        properties.insert(param.name.to_owned(), Value::from(schema));
        if param.required {
            required.push(Value::from(param.name));
        }
    }
    // Built in place: `json!` would serialize the maps it is given all over again.
    let mut schema = Map::new();
    if declared {
        schema.insert("$schema".into(), DIALECT_2020_12.into());
    }
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), Value::Array(required));
    schema.insert("additionalProperties".into(), false.into());
    add_definitions(&mut schema, &mut generator);
    let defs = schema.get("$defs").unwrap_or(&Value::Null);
    let expected = params
        .iter()
        .zip(arguments)
        .map(|(p, argument)| match argument {
            true => expected(&schema["properties"][p.name], defs, 0),
            false => String::new(),
        })
        .collect();
    (portable_object(schema), expected)
}

fn add_definitions(schema: &mut JsonObject, generator: &mut SchemaGenerator) {
    let definitions = generator.take_definitions(true);
    if !definitions.is_empty() {
        schema.insert("$defs".into(), Value::Object(definitions));
    }
}

/// What [`expected`] says of a schema it cannot put in a few words.
pub(crate) const ANYTHING: &str = "a value matching the tool's input schema";

/// A short phrase for what `schema` accepts, for error messages (`defs`: the `$defs` its
/// `#/$defs/...` references point into).
pub(crate) fn expected(schema: &Value, defs: &Value, depth: usize) -> String {
    match schema.as_object() {
        Some(object) => expected_of(object, defs, depth),
        None => ANYTHING.to_owned(),
    }
}

/// [`expected`] of a schema that is an object.
pub(crate) fn expected_of(object: &JsonObject, defs: &Value, depth: usize) -> String {
    if let Some(reference) = object.get("$ref").and_then(Value::as_str)
        && depth < 4
        && let Some(target) = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| defs.get(name))
    {
        return expected(target, defs, depth + 1);
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(Value::to_string).collect();
        return format!("one of {}", values.join(", "));
    }
    if let Some(value) = object.get("const") {
        return format!("exactly {value}");
    }
    match object.get("type") {
        Some(Value::String(ty)) => with_article(ty),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .map(with_article)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => alternatives(object, defs, depth).unwrap_or_else(|| ANYTHING.to_owned()),
    }
}

/// What one of the `anyOf` (or `oneOf`) alternatives of `object` accepts: each phrase once,
/// joined by "or"; `None` when one of them cannot be said in a few words.
fn alternatives(object: &JsonObject, defs: &Value, depth: usize) -> Option<String> {
    let list = object
        .get("anyOf")
        .or_else(|| object.get("oneOf"))
        .and_then(Value::as_array)
        .filter(|_| depth < 4)?;
    let mut phrases: Vec<String> = Vec::with_capacity(list.len());
    for alternative in list {
        let phrase = expected(alternative, defs, depth + 1);
        if phrase == ANYTHING {
            return None;
        }
        if !phrases.contains(&phrase) {
            phrases.push(phrase);
        }
    }
    (!phrases.is_empty()).then(|| phrases.join(" or "))
}

pub(crate) fn with_article(ty: &str) -> String {
    match ty {
        "integer" | "object" | "array" => format!("an {ty}"),
        "null" => "null".to_owned(),
        _ => format!("a {ty}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Note {
        id: u64,
        title: String,
        tags: Option<Vec<String>>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Tree {
        label: String,
        children: Vec<Tree>,
    }

    #[test]
    fn object_outputs_are_used_as_they_are() {
        let out = output::<Note>();
        assert!(!out.wrapped);
        assert_eq!(out.schema["type"], "object");
        assert!(out.schema.get("$schema").is_none());
        assert_eq!(out.schema["properties"]["id"]["type"], "integer");
    }

    #[test]
    fn other_outputs_are_wrapped_under_result() {
        let out = output::<Vec<Note>>();
        assert!(out.wrapped);
        assert_eq!(out.schema["required"], json!(["result"]));
        assert_eq!(out.schema[WRAP_RESULT_KEY], true);
        let items = &out.schema["properties"]["result"]["items"];
        assert_eq!(items["type"], "object", "nested types are inlined: {items}");
        assert!(out.schema.get("$defs").is_none());
        assert!(output::<i64>().wrapped);
    }

    #[test]
    fn non_standard_formats_are_dropped_and_bounds_kept() {
        let out = output::<Note>();
        let id = &out.schema["properties"]["id"];
        assert_eq!(id, &json!({"type": "integer", "minimum": 0}), "{id}");
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Stamped {
            format: String,
            at: std::net::Ipv4Addr,
        }
        let out = output::<Stamped>();
        assert_eq!(
            out.schema["properties"]["format"]["type"], "string",
            "a property named format stays"
        );
        assert_eq!(
            out.schema["properties"]["at"]["format"], "ipv4",
            "standard formats stay"
        );
    }

    #[test]
    fn any_value_is_an_empty_schema_not_true() {
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Loose {
            anything: Value,
            list: Vec<Value>,
        }
        let out = output::<Value>();
        assert_eq!(out.schema["properties"]["result"], json!({}));
        let out = output::<Loose>();
        assert_eq!(out.schema["properties"]["anything"], json!({}));
        assert_eq!(out.schema["properties"]["list"]["items"], json!({}));
    }

    #[test]
    fn recursive_types_keep_a_reference() {
        let out = output::<Vec<Tree>>();
        assert!(out.schema.contains_key("$defs"), "{:?}", out.schema);
    }

    #[test]
    fn expected_phrases_follow_the_schema() {
        let defs = Value::Null;
        assert_eq!(expected(&json!({"type": "string"}), &defs, 0), "a string");
        assert_eq!(
            expected(&json!({"type": ["integer", "null"]}), &defs, 0),
            "an integer or null"
        );
        assert_eq!(
            expected(&json!({"enum": ["a", "b"]}), &defs, 0),
            "one of \"a\", \"b\""
        );
        assert_eq!(
            expected(
                &json!({"anyOf": [{"type": "string"}, {"type": "null"}, {"type": "string"}]}),
                &defs,
                0
            ),
            "a string or null"
        );
        assert_eq!(
            expected(&json!({"oneOf": [{"type": "string"}, {}]}), &defs, 0),
            ANYTHING
        );
        let defs = json!({"T": {"type": "object"}});
        assert_eq!(
            expected(&json!({"$ref": "#/$defs/T"}), &defs, 0),
            "an object"
        );
    }
}
