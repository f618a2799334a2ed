//! A tool reshaped by the overrides file: its description, and per argument a new name, a new
//! description, a default, or hidden (with a fixed value, a literal or a secret reference such
//! as `${env:LIBRARY_KEY}`, never shown to the client). The schema the client sees is
//! rewritten once, when the tool is listed ([`Reshape::of`]); a call's arguments are mapped
//! back to the upstream's before they go ([`Reshape::apply`]). A confirmation question names
//! the arguments as the client sees them.

use std::collections::BTreeMap;

use rmcp::model::JsonObject;
use serde::Deserialize;
use serde_json::Value;

/// What an overrides entry says of one argument (`[tools.NAME.arguments.ARG]`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArgumentOverride {
    /// The name the client sees instead.
    pub(crate) rename: Option<String>,
    /// The description the client sees instead.
    pub(crate) description: Option<String>,
    /// Its value when the client gives none (no longer required; shown in the schema, so
    /// never a secret: that is a hidden `value`).
    pub(crate) default: Option<Value>,
    /// Not shown to the client: left out of the schema (an optional argument), or sent with
    /// `value` (a required one).
    pub(crate) hidden: Option<bool>,
    /// Hidden, and always sent with this value (a string's `${…}` expanded when the
    /// upstream starts: `${env:NAME}`, `${file:PATH}`).
    pub(crate) value: Option<Value>,
}

/// How a reshaped tool's arguments go back to the upstream's.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Reshape {
    /// (the name the client sends, the upstream's name).
    renamed: Vec<(String, String)>,
    /// (the upstream's name, its value when the client sends none).
    defaults: Vec<(String, Value)>,
    /// (the upstream's name, the value always sent).
    fixed: Vec<(String, Value)>,
    /// The upstream's names the client does not see (hidden, or renamed): what a client sends
    /// under one of them is dropped, not passed on.
    unseen: Vec<String>,
}

impl Reshape {
    /// `schema` (the upstream's input schema) as the client sees it, with `description` in
    /// place of the tool's, and how to map its calls back; an error names what does not fit
    /// (an argument it does not take, a name taken, a required argument hidden without a
    /// value, a secret that cannot be read).
    pub(crate) fn of(
        schema: &JsonObject,
        arguments: &BTreeMap<String, ArgumentOverride>,
    ) -> Result<(JsonObject, Reshape), String> {
        let mut shown = schema.clone();
        let mut properties = match shown.remove("properties") {
            Some(Value::Object(properties)) => properties,
            _ => JsonObject::new(),
        };
        let mut required: Vec<String> = match shown.remove("required") {
            Some(Value::Array(names)) => names
                .into_iter()
                .filter_map(|name| name.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        let taken: Vec<String> = properties.keys().cloned().collect();
        let mut reshape = Reshape::default();
        for (name, changes) in arguments {
            let Some(mut property) = properties.remove(name) else {
                return Err(format!(
                    "`arguments.{name}`: the tool takes no argument {name} (it takes {})",
                    listed(&taken)
                ));
            };
            let was_required = required.iter().any(|r| r == name);
            required.retain(|r| r != name);
            let hidden = changes.hidden == Some(true) || changes.value.is_some();
            if hidden {
                reshape.unseen.push(name.clone());
                match &changes.value {
                    Some(value) => reshape.fixed.push((name.clone(), expanded(value, name)?)),
                    None if was_required => {
                        return Err(format!(
                            "`arguments.{name}`: a required argument cannot be hidden without a `value` to send"
                        ));
                    }
                    None => {}
                }
                continue;
            }
            if let Some(description) = &changes.description
                && let Value::Object(property) = &mut property
            {
                property.insert("description".into(), Value::String(description.clone()));
            }
            if let Some(default) = &changes.default {
                if let Value::Object(property) = &mut property {
                    property.insert("default".into(), default.clone());
                }
                reshape.defaults.push((name.clone(), default.clone()));
            }
            let shown_name = changes.rename.clone().unwrap_or_else(|| name.clone());
            if shown_name != *name {
                if properties.contains_key(&shown_name) || taken.contains(&shown_name) {
                    return Err(format!(
                        "`arguments.{name}.rename`: the tool already takes an argument {shown_name}"
                    ));
                }
                reshape.renamed.push((shown_name.clone(), name.clone()));
                reshape.unseen.push(name.clone());
            }
            if was_required && changes.default.is_none() {
                required.push(shown_name.clone());
            }
            properties.insert(shown_name, property);
        }
        // The required, sorted.
        shown.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            required.sort();
            shown.insert(
                "required".into(),
                Value::Array(required.into_iter().map(Value::String).collect()),
            );
        }
        Ok((shown, reshape))
    }

    /// `arguments` as the client sent them (checked against the reshaped schema) as the
    /// upstream takes them: renamed back, defaults where none was given, fixed values set.
    pub(crate) fn apply(&self, mut arguments: JsonObject) -> JsonObject {
        // Where the schema does not refuse unknown arguments, one sent under a name the
        // client does not see goes no further.
        for name in &self.unseen {
            arguments.remove(name);
        }
        for (shown, upstream) in &self.renamed {
            if let Some(value) = arguments.remove(shown) {
                arguments.insert(upstream.clone(), value);
            }
        }
        for (name, value) in &self.defaults {
            if !arguments.contains_key(name) {
                arguments.insert(name.clone(), value.clone());
            }
        }
        for (name, value) in &self.fixed {
            arguments.insert(name.clone(), value.clone());
        }
        arguments
    }

    /// Whether it changes nothing.
    pub(crate) fn is_empty(&self) -> bool {
        self.renamed.is_empty()
            && self.defaults.is_empty()
            && self.fixed.is_empty()
            && self.unseen.is_empty()
    }
}

/// `value` with the `${…}` of a string expanded (secrets named, not written).
fn expanded(value: &Value, name: &str) -> Result<Value, String> {
    match value {
        Value::String(text) => crate::secret::expand(text)
            .map(Value::String)
            .map_err(|why| format!("`arguments.{name}`: {why}")),
        other => Ok(other.clone()),
    }
}

fn listed(names: &[String]) -> String {
    match names.is_empty() {
        true => "none".to_owned(),
        false => names.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> JsonObject {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to find."},
                "limit": {"type": "integer"},
                "api_key": {"type": "string"},
                "trace": {"type": "string"}
            },
            "required": ["query", "api_key"]
        })
        .as_object()
        .cloned()
        .unwrap()
    }

    fn overrides(text: &str) -> BTreeMap<String, ArgumentOverride> {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn the_client_sees_the_new_shape_and_the_upstream_gets_its_own() {
        // SAFETY: set before any thread of this test reads it; the name is this test's own.
        unsafe { std::env::set_var("RESHAPE_TEST_KEY", "s3cret") };
        let (shown, reshape) = Reshape::of(
            &schema(),
            &overrides(
                r#"
                query = { rename = "text", description = "Words to look for." }
                limit = { default = 10 }
                api_key = { value = "${env:RESHAPE_TEST_KEY}" }
                trace = { hidden = true }
                "#,
            ),
        )
        .unwrap();
        assert_eq!(
            Value::Object(shown.clone()),
            json!({
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "Words to look for."},
                    "limit": {"type": "integer", "default": 10}
                },
                "required": ["text"]
            })
        );
        assert!(!serde_json::to_string(&shown).unwrap().contains("s3cret"));
        let sent = reshape.apply(json!({"text": "milk"}).as_object().cloned().unwrap());
        assert_eq!(
            Value::Object(sent),
            json!({"query": "milk", "limit": 10, "api_key": "s3cret"})
        );
        let sent = reshape.apply(
            json!({"text": "x", "limit": 2})
                .as_object()
                .cloned()
                .unwrap(),
        );
        assert_eq!(sent["limit"], 2, "a given value is kept");
        // Sent under names the client does not see: dropped, or the fixed value wins.
        let sneaked = json!({"text": "x", "query": "other", "trace": "t", "api_key": "mine"});
        let sent = reshape.apply(sneaked.as_object().cloned().unwrap());
        assert_eq!(
            Value::Object(sent),
            json!({"query": "x", "limit": 10, "api_key": "s3cret"})
        );
    }

    #[test]
    fn what_does_not_fit_is_named() {
        let err = Reshape::of(&schema(), &overrides("nope = { rename = \"x\" }")).unwrap_err();
        assert!(
            err.contains("no argument nope") && err.contains("query"),
            "{err}"
        );
        let err = Reshape::of(&schema(), &overrides("query = { rename = \"limit\" }")).unwrap_err();
        assert!(err.contains("already takes an argument limit"), "{err}");
        let err = Reshape::of(&schema(), &overrides("api_key = { hidden = true }")).unwrap_err();
        assert!(err.contains("without a `value`"), "{err}");
        let err = Reshape::of(
            &schema(),
            &overrides("api_key = { value = \"${env:RESHAPE_TEST_UNSET_VAR}\" }"),
        )
        .unwrap_err();
        assert!(err.contains("RESHAPE_TEST_UNSET_VAR"), "{err}");
        let (_, none) = Reshape::of(&schema(), &BTreeMap::new()).unwrap();
        assert!(none.is_empty());
    }
}
