//! An OpenAPI document: read from a file or fetched from a URL, JSON or YAML, its version
//! checked (3.0 or 3.1), and every local `$ref` in it replaced by what it points to.

use serde_json::{Map, Value};

/// How deep `$ref`s may nest in one place: a schema that refers to itself is cut there (as
/// an object whose properties are not described).
const MAX_REF_DEPTH: usize = 16;

/// How many `$ref`s one document may expand to in all: schemas that refer to each other
/// can multiply without a cycle on any one path.
const MAX_REFS: usize = 100_000;

/// The document at `source` (a path, or an `http(s)://` URL fetched with `client`), parsed:
/// JSON when it starts with `{`, else YAML.
pub(crate) async fn load(source: &str, client: &reqwest::Client) -> Result<Value, String> {
    let text = if source.starts_with("http://") || source.starts_with("https://") {
        let answer = client.get(source).send().await.map_err(|err| {
            format!(
                "cannot fetch the OpenAPI document {source}: {}",
                super::call::why(err)
            )
        })?;
        let status = answer.status();
        if !status.is_success() {
            return Err(format!(
                "cannot fetch the OpenAPI document {source}: HTTP {status}"
            ));
        }
        answer
            .text()
            .await
            .map_err(|err| format!("cannot read the OpenAPI document {source}: {err}"))?
    } else {
        std::fs::read_to_string(source)
            .map_err(|err| format!("cannot read the OpenAPI document {source}: {err}"))?
    };
    parse(&text).map_err(|why| format!("the OpenAPI document {source}: {why}"))
}

/// `text` as JSON or YAML, its version checked, its `$ref`s resolved.
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    let document: Value = if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|err| format!("not JSON: {err}"))?
    } else {
        serde_norway::from_str(text).map_err(|err| format!("not YAML: {err}"))?
    };
    let version = document
        .get("openapi")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !(version.starts_with("3.0") || version.starts_with("3.1")) {
        let said = if version.is_empty() {
            "no `openapi` version (Swagger 2.0?)".to_owned()
        } else {
            format!("version {version}")
        };
        return Err(format!(
            "{said}: an OpenAPI 3.0 or 3.1 document is needed (convert a Swagger 2.0 one first)"
        ));
    }
    resolve(&document, &document, &mut Vec::new(), &mut 0)
}

/// `node` with every `$ref` replaced by a copy of its target in `root`; `within`: the refs
/// being resolved around it (one met again is a cycle, cut).
fn resolve(
    root: &Value,
    node: &Value,
    within: &mut Vec<String>,
    expanded: &mut usize,
) -> Result<Value, String> {
    match node {
        Value::Object(object) => {
            if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
                let Some(pointer) = reference.strip_prefix('#') else {
                    return Err(format!(
                        "`$ref` {reference:?} points into another document: bundle it into this one first"
                    ));
                };
                if within.iter().any(|seen| seen == reference) || within.len() >= MAX_REF_DEPTH {
                    // A recursive schema: described as far as it does not repeat.
                    return Ok(serde_json::json!({"type": "object"}));
                }
                *expanded += 1;
                if *expanded > MAX_REFS {
                    return Err(format!(
                        "its `$ref`s expand past {MAX_REFS} schemas (schemas that refer to each other): simplify them"
                    ));
                }
                // A URI fragment: `%7B` is `{` (`#/paths/~1notes~1%7Bid%7D`).
                let pointer = percent_encoding::percent_decode_str(pointer)
                    .decode_utf8()
                    .map_err(|_| format!("`$ref` {reference:?} is not UTF-8 once decoded"))?;
                let target = root
                    .pointer(&pointer)
                    .ok_or_else(|| format!("`$ref` {reference:?} points at nothing"))?;
                within.push(reference.to_owned());
                let mut resolved = resolve(root, target, within, expanded)?;
                within.pop();
                // 3.1 lets a `$ref` carry siblings (a description): they win.
                if let Value::Object(resolved) = &mut resolved {
                    for (key, value) in object.iter().filter(|(key, _)| *key != "$ref") {
                        resolved.insert(key.clone(), resolve(root, value, within, expanded)?);
                    }
                }
                return Ok(resolved);
            }
            let mut out = Map::with_capacity(object.len());
            for (key, value) in object {
                out.insert(key.clone(), resolve(root, value, within, expanded)?);
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => items
            .iter()
            .map(|item| resolve(root, item, within, expanded))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refs_are_inlined_and_a_cycle_is_cut() {
        let yaml = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Note:
      type: object
      properties:
        id: {type: integer}
        parent: {$ref: "#/components/schemas/Note"}
    Wrapper:
      $ref: "#/components/schemas/Note"
"##;
        let document = parse(yaml).unwrap();
        let wrapper = &document["components"]["schemas"]["Wrapper"];
        assert_eq!(wrapper["properties"]["id"], json!({"type": "integer"}));
        // Reached through a `$ref` to itself, a schema is cut at its second appearance.
        assert_eq!(wrapper["properties"]["parent"], json!({"type": "object"}));
        let note = &document["components"]["schemas"]["Note"];
        assert_eq!(
            note["properties"]["parent"]["properties"]["parent"],
            json!({"type": "object"})
        );
    }

    #[test]
    fn a_wrong_document_says_what_is_wrong() {
        let swagger = r#"{"swagger": "2.0", "paths": {}}"#;
        assert!(parse(swagger).unwrap_err().contains("Swagger 2.0"));
        let remote = r#"{"openapi": "3.1.0", "x": {"$ref": "other.yaml#/a"}}"#;
        assert!(parse(remote).unwrap_err().contains("another document"));
        let encoded = r##"{"openapi": "3.1.0", "paths": {"/n/{id}": {"get": {"x-a": 1}}},
            "x": {"$ref": "#/paths/~1n~1%7Bid%7D/get"}}"##;
        assert_eq!(parse(encoded).unwrap()["x"], json!({"x-a": 1}));
        let dangling = r##"{"openapi": "3.1.0", "x": {"$ref": "#/components/none"}}"##;
        assert!(parse(dangling).unwrap_err().contains("points at nothing"));
        assert!(parse("openapi: [").unwrap_err().contains("not YAML"));
    }
}
