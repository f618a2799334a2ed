//! Arguments that arrive as strings (a resource template's variables, a prompt's arguments)
//! decoded by their parameters' types: a variable of a number or boolean parameter is read as
//! JSON (`notes://42` fills `note_id: u64`), any other stays a string. Decided once per
//! parameter from its schema, not per request.

use rmcp::model::JsonObject;
use serde_json::Value;

/// Which of an item's arguments are read as JSON rather than kept as strings.
#[derive(Debug, Default, Clone)]
pub(crate) struct StringArgs {
    json: Vec<String>,
}

impl StringArgs {
    /// From an input schema (`tool::schema::input`).
    pub(crate) fn of_schema(schema: &JsonObject) -> StringArgs {
        let json = schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(_, property)| !takes_string(property))
            .map(|(name, _)| name.clone())
            .collect();
        StringArgs { json }
    }

    /// The arguments object of `values`: a value of a parameter that is not a string is
    /// read as JSON when it parses (else it stays a string, and decoding says why it is
    /// wrong).
    pub(crate) fn object<'a>(
        &self,
        values: impl IntoIterator<Item = (&'a str, String)>,
    ) -> JsonObject {
        values
            .into_iter()
            .map(|(name, value)| {
                let value = match self.json.iter().any(|n| n == name) {
                    true => serde_json::from_str(&value).unwrap_or(Value::String(value)),
                    false => Value::String(value),
                };
                (name.to_owned(), value)
            })
            .collect()
    }
}

/// Whether a property's schema admits a string (then its value is kept as written).
fn takes_string(property: &Value) -> bool {
    match property.get("type") {
        Some(Value::String(kind)) => kind == "string",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "string"),
        // `$ref`, `anyOf`, an enum of strings...: keep the string.
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_and_booleans_are_read_as_json_strings_stay_strings() {
        let schema = json!({"properties": {
            "id": {"type": "integer"},
            "flag": {"type": "boolean"},
            "name": {"type": "string"},
            "maybe": {"type": ["string", "null"]},
        }});
        let args = StringArgs::of_schema(schema.as_object().unwrap());
        let object = args.object([
            ("id", "42".to_owned()),
            ("flag", "true".to_owned()),
            ("name", "42".to_owned()),
            ("maybe", "7".to_owned()),
        ]);
        assert_eq!(
            Value::Object(object),
            json!({"id": 42, "flag": true, "name": "42", "maybe": "7"})
        );
        let wrong = args.object([("id", "x1".to_owned())]);
        assert_eq!(Value::Object(wrong), json!({"id": "x1"}));
    }
}
