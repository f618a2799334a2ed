//! JSON in one canonical form: object keys sorted, no whitespace, scalars as serde_json
//! writes them. What a hash of JSON reads, so that two equal values hash alike whatever
//! their key order: a schema's fingerprint in the hints snapshot, a call's arguments in a
//! request state's binding. And JSON as a tool reads it ([`normalized`]): a number without a
//! fraction as an integer, whichever way it was written (`1`, `1.0`, `1e0`), what approval
//! rules and remembered approvals match.

use serde_json::{Map, Value};

/// Appends `value` to `out` in canonical form.
pub(crate) fn write(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(object) => write_object(object, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out);
            }
            out.push(b']');
        }
        scalar => {
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

/// Appends `object` to `out` in canonical form.
pub(crate) fn write_object(object: &Map<String, Value>, out: &mut Vec<u8>) {
    let mut keys: Vec<&String> = object.keys().collect();
    keys.sort();
    out.push(b'{');
    for (i, key) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = serde_json::to_writer(&mut *out, key);
        out.push(b':');
        write(&object[key], out);
    }
    out.push(b'}');
}

/// `value` with every number that has no fraction (`1.0`, `1e0`, `-0.0`) written as the
/// integer it is (a tool reads `1.0` as `1`); strings, and numbers with a fraction or past
/// 64 bits, as they are. Two arguments a tool reads alike are equal once normalized.
pub(crate) fn normalized(value: &Value) -> Value {
    match value {
        Value::Number(number) if number.is_f64() => {
            let float = number.as_f64().unwrap_or(f64::NAN);
            // Integers of at most 2^53 are exact in an f64: beyond, `1e30` stays a float.
            const EXACT: f64 = 9_007_199_254_740_992.0;
            if float.fract() == 0.0 && float.abs() <= EXACT {
                Value::from(float as i64)
            } else {
                value.clone()
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(normalized).collect()),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| (key.clone(), normalized(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `value` normalized, in canonical form, as text (a string as it is, unquoted): what an
/// approval rule's pattern is matched against.
pub(crate) fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => {
            let mut out = Vec::new();
            write(&normalized(other), &mut out);
            String::from_utf8(out).unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_number_without_a_fraction_is_its_integer_and_strings_stay() {
        let as_text = |value: serde_json::Value| super::text(&value);
        let one: serde_json::Value = serde_json::from_str("1e0").unwrap();
        assert_eq!(as_text(one), "1");
        assert_eq!(as_text(json!(1.0)), "1");
        assert_eq!(as_text(json!(-0.0)), "0");
        assert_eq!(as_text(json!(1)), "1");
        assert_eq!(as_text(json!(1.5)), "1.5");
        assert_eq!(as_text(json!(1e30)), "1e+30");
        assert_eq!(as_text(json!("1.0")), "1.0", "a string is what it says");
        assert_eq!(
            as_text(json!({"b": [2.0], "a": "x"})),
            r#"{"a":"x","b":[2]}"#
        );
        assert_eq!(super::normalized(&json!({"n": 3.0})), json!({"n": 3}));
    }

    fn canonical(value: serde_json::Value) -> String {
        let mut out = Vec::new();
        super::write(&value, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn keys_are_sorted_at_every_depth_and_nothing_else_changes() {
        assert_eq!(
            canonical(json!({"b": [1, {"d": "x\"y", "c": null}], "a": 1.5})),
            r#"{"a":1.5,"b":[1,{"c":null,"d":"x\"y"}]}"#
        );
        assert_eq!(canonical(json!("é")), "\"é\"");
    }
}
