//! JSON in one canonical form: object keys sorted, no whitespace, scalars as serde_json
//! writes them. What a hash of JSON reads, so that two equal values hash alike whatever
//! their key order: a schema's fingerprint in the hints snapshot, a call's arguments in a
//! request state's binding.

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

#[cfg(test)]
mod tests {
    use serde_json::json;

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
