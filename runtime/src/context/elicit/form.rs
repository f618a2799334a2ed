//! A Rust type as an elicitation form: schemars' schema of it, brought to the flat subset the
//! protocol allows in a `requestedSchema` (an object of strings, numbers, integers, booleans,
//! enums of strings and lists of enum values), or an error naming the field that does not
//! fit.
//!
//! - `Option<T>`: the field is optional (schemars writes `T` or null);
//! - an enum of unit variants: `enum` of its names, or `oneOf` of `{const, title}` when its
//!   variants are documented (SEP-1330's titled options; the doc comment is the title);
//! - `Vec` of such an enum: a multi-select list (`items.enum` or `items.anyOf`);
//! - `#[serde(default)]`: the field's `default` (SEP-1034).

use rmcp::model::ElicitationSchema;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

use super::AskError;

/// Keys a primitive property keeps.
const KEPT: &[&str] = &[
    "type",
    "title",
    "description",
    "default",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "format",
    "enum",
    "oneOf",
    "items",
    "minItems",
    "maxItems",
];

/// The string formats a form may ask for.
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// The form for `T`.
pub(super) fn schema_of<T: JsonSchema>() -> Result<ElicitationSchema, AskError> {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let root = Value::from(generator.into_root_schema_for::<T>());
    let form = flatten(&root).map_err(AskError::Schema)?;
    ElicitationSchema::from_json_schema(form).map_err(|err| {
        AskError::Schema(format!(
            "`{}` is not a form the protocol allows: {err}",
            std::any::type_name::<T>()
        ))
    })
}

fn flatten(root: &Value) -> Result<Map<String, Value>, String> {
    let Some(properties) = root.get("properties").and_then(Value::as_object) else {
        return Err("an elicitation form is a struct with named fields".into());
    };
    let required: Vec<&str> = root
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut out = Map::new();
    let mut still_required = Vec::new();
    for (name, schema) in properties {
        let (property, optional) = property(name, schema)?;
        if required.contains(&name.as_str()) && !optional {
            still_required.push(Value::from(name.clone()));
        }
        out.insert(name.clone(), Value::Object(property));
    }
    let mut form = Map::new();
    form.insert("type".into(), "object".into());
    for key in ["title", "description"] {
        if let Some(value) = root.get(key) {
            form.insert(key.into(), value.clone());
        }
    }
    form.insert("properties".into(), Value::Object(out));
    if !still_required.is_empty() {
        form.insert("required".into(), Value::Array(still_required));
    }
    Ok(form)
}

/// One field as a form property, and whether it may be left out (an `Option`).
fn property(name: &str, schema: &Value) -> Result<(Map<String, Value>, bool), String> {
    let Some(object) = schema.as_object() else {
        return Err(format!("field `{name}` has no schema a form can show"));
    };
    let mut object = object.clone();
    let mut optional = false;
    // `Option<T>`: `type: ["string", "null"]`, or `anyOf: [T, {type: null}]`.
    if let Some(Value::Array(types)) = object.get("type").cloned() {
        let kept: Vec<Value> = types.into_iter().filter(|t| t != "null").collect();
        optional = true;
        match kept.as_slice() {
            [one] => {
                object.insert("type".into(), one.clone());
            }
            _ => {
                return Err(format!(
                    "field `{name}` has several types: a form field has one"
                ));
            }
        }
    }
    if let Some(Value::Array(any)) = object.remove("anyOf") {
        let kept: Vec<&Value> = any
            .iter()
            .filter(|s| s.get("type") != Some(&"null".into()))
            .collect();
        let [inner] = kept.as_slice() else {
            return Err(format!(
                "field `{name}` is one of several shapes: a form field has one"
            ));
        };
        optional = any.len() > kept.len();
        let (mut inner, _) = property(name, inner)?;
        for key in ["title", "description", "default"] {
            if let Some(value) = object.get(key) {
                inner.insert(key.into(), value.clone());
            }
        }
        if let Some(Value::Null) = inner.get("default") {
            inner.remove("default");
        }
        return Ok((inner, optional));
    }
    if let Some(Value::Null) = object.get("default") {
        object.remove("default");
    }
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match kind.as_deref() {
        Some("string" | "number" | "integer" | "boolean") => {}
        Some("array") => {
            let items = object.get("items").cloned().unwrap_or_default();
            object.insert(
                "items".into(),
                Value::Object(options(name, &items, "anyOf")?),
            );
        }
        None if object.contains_key("oneOf") || object.contains_key("enum") => {
            object.insert("type".into(), "string".into());
        }
        Some(other) => {
            return Err(format!(
                "field `{name}` is of type {other}: a form field is a string, number, integer, boolean or enum"
            ));
        }
        None => {
            return Err(format!(
                "field `{name}` has no type a form can show: use a string, number, integer, boolean or enum"
            ));
        }
    }
    if object.contains_key("oneOf") || object.contains_key("enum") {
        let titled = options(name, &Value::Object(object.clone()), "oneOf")?;
        object.remove("oneOf");
        object.remove("enum");
        object.extend(titled);
    }
    if let Some(format) = object.get("format").and_then(Value::as_str)
        && !FORMATS.contains(&format)
    {
        object.remove("format");
    }
    object.retain(|key, _| KEPT.contains(&key.as_str()));
    Ok((object, optional))
}

/// The options of an enum field (`single: "oneOf"`) or of a list's items (`"anyOf"`): an
/// `enum` of strings, or titled `{const, title}` options when schemars documented them.
fn options(name: &str, schema: &Value, titled_key: &str) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    out.insert("type".into(), "string".into());
    if let Some(Value::Array(values)) = schema.get("enum") {
        if values.iter().any(|v| !v.is_string()) {
            return Err(format!("field `{name}` has options that are not strings"));
        }
        out.insert("enum".into(), Value::Array(values.clone()));
        return Ok(out);
    }
    let Some(Value::Array(variants)) = schema.get("oneOf").or_else(|| schema.get("anyOf")) else {
        return Err(format!(
            "field `{name}` is a list of something that is not a set of options: a form list holds enum values"
        ));
    };
    let mut titled = Vec::new();
    for variant in variants {
        let value = variant
            .get("const")
            .or_else(|| variant.get("enum").and_then(|e| e.get(0)))
            .and_then(Value::as_str)
            .ok_or_else(|| format!("field `{name}` has an option that is not a plain name"))?;
        let title = variant
            .get("title")
            .or_else(|| variant.get("description"))
            .and_then(Value::as_str)
            .unwrap_or(value);
        titled.push(serde_json::json!({"const": value, "title": title}));
    }
    if titled_key == "anyOf" {
        out.remove("type");
    }
    out.insert(titled_key.into(), Value::Array(titled));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::{Value, json};

    use super::schema_of;

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    enum Plain {
        Low,
        High,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    enum Titled {
        /// First option
        #[serde(rename = "value1")]
        One,
        /// Second option
        #[serde(rename = "value2")]
        Two,
    }

    fn default_name() -> String {
        "John Doe".into()
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Everything {
        /// Your name.
        #[serde(default = "default_name")]
        name: String,
        age: u32,
        score: Option<f64>,
        verified: bool,
        level: Plain,
        choice: Titled,
        picks: Vec<Titled>,
        plain_picks: Vec<Plain>,
        contact: Option<String>,
    }

    fn form<T: JsonSchema>() -> Value {
        serde_json::to_value(schema_of::<T>().unwrap()).unwrap()
    }

    #[test]
    fn a_struct_becomes_a_flat_form() {
        let form = form::<Everything>();
        let p = &form["properties"];
        assert_eq!(p["name"]["type"], "string");
        assert_eq!(p["name"]["default"], "John Doe");
        assert_eq!(p["name"]["description"], "Your name.");
        assert_eq!(p["age"]["type"], "integer");
        assert_eq!(p["score"]["type"], "number");
        assert_eq!(p["verified"]["type"], "boolean");
        assert_eq!(
            p["level"],
            json!({"type": "string", "enum": ["Low", "High"]})
        );
        assert_eq!(
            p["choice"]["oneOf"],
            json!([{"const": "value1", "title": "First option"},
                   {"const": "value2", "title": "Second option"}])
        );
        assert_eq!(p["picks"]["type"], "array");
        assert_eq!(p["picks"]["items"]["anyOf"][1]["title"], "Second option");
        assert_eq!(p["plain_picks"]["items"]["enum"], json!(["Low", "High"]));
        let required: Vec<&str> = form["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(required.contains(&"age") && required.contains(&"verified"));
        assert!(!required.contains(&"score") && !required.contains(&"contact"));
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Nested {
        inner: Inner,
    }

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Inner {
        x: u32,
    }

    #[test]
    fn a_nested_object_is_refused_naming_the_field() {
        let err = schema_of::<Nested>().unwrap_err().to_string();
        assert!(err.contains("`inner`") && err.contains("object"), "{err}");
        let err = schema_of::<u32>().unwrap_err().to_string();
        assert!(err.contains("struct with named fields"), "{err}");
    }
}
