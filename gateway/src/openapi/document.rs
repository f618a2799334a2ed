//! An OpenAPI document: read from a file or fetched from a URL, JSON or YAML, its version
//! checked (3.0 or 3.1), and every local `$ref` in it replaced by what it points to.

use serde::de::DeserializeSeed;
use serde_json::{Map, Value};

use super::budget::{Budget, Read};

/// How deep `$ref`s may nest in one place: a schema that refers to itself is cut there (as
/// an object whose properties are not described).
const MAX_REF_DEPTH: usize = 16;

/// The document at `source` (a path, or an `http(s)://` URL fetched with `client`), read up
/// to `max` bytes, parsed: JSON when it starts with `{`, else YAML.
pub(crate) async fn load(
    source: &str,
    client: &reqwest::Client,
    max: usize,
) -> Result<Value, String> {
    let too_long = || {
        format!(
            "the OpenAPI document {source} is longer than {max} bytes, the most the gateway reads (raise `max_document_bytes`)"
        )
    };
    let cannot_read =
        |err: &dyn std::fmt::Display| format!("cannot read the OpenAPI document {source}: {err}");
    let bytes = if source.starts_with("http://") || source.starts_with("https://") {
        let mut answer = client.get(source).send().await.map_err(|err| {
            format!(
                "cannot fetch the OpenAPI document {source}: {}",
                super::why(err)
            )
        })?;
        let status = answer.status();
        if !status.is_success() {
            return Err(format!(
                "cannot fetch the OpenAPI document {source}: HTTP {status}"
            ));
        }
        // The length the server announces is only a hint: the body is counted as it comes.
        if answer.content_length().is_some_and(|n| n > max as u64) {
            return Err(too_long());
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|err| cannot_read(&super::why(err)))?
        {
            if bytes.len() + chunk.len() > max {
                return Err(too_long());
            }
            bytes.extend_from_slice(&chunk);
        }
        bytes
    } else {
        use std::io::Read;
        let file = std::fs::File::open(source).map_err(|err| cannot_read(&err))?;
        let mut bytes = Vec::new();
        // One byte past the most: a file that has it is too long (a device never ends).
        file.take(max as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|err| cannot_read(&err))?;
        if bytes.len() > max {
            return Err(too_long());
        }
        bytes
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("the OpenAPI document {source} is not UTF-8 text"))?;
    parse(&text).map_err(|why| format!("the OpenAPI document {source}: {why}"))
}

/// `text` as JSON or YAML, its version checked, its `$ref`s resolved.
pub(crate) fn parse(text: &str) -> Result<Value, String> {
    let document: Value = if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|err| format!("not JSON: {err}"))?
    } else {
        // YAML's aliases copy what they name: a budget as `$ref`s have.
        let mut budget = Budget::past(text.len(), "its YAML aliases (`*name`)");
        let yaml = serde_norway::Deserializer::from_str(text);
        let read = Read(&mut budget).deserialize(yaml);
        read.map_err(|err| match budget.exhausted() {
            true => budget.error(),
            false => format!("not YAML: {err}"),
        })?
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
    let mut budget = Budget::past(text.len(), "its `$ref`s");
    resolve(&document, &document, &mut Vec::new(), &mut budget)
}

/// `node` with every `$ref` replaced by a copy of its target in `root`; `within`: the refs
/// being resolved around it (one met again is a cycle, cut); each value paid for from
/// `budget` as it is made (see `budget.rs`).
fn resolve(
    root: &Value,
    node: &Value,
    within: &mut Vec<String>,
    budget: &mut Budget,
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
                    budget.spend(r#"{"type":"object"}"#.len())?;
                    return Ok(serde_json::json!({"type": "object"}));
                }
                // A URI fragment: `%7B` is `{` (`#/paths/~1notes~1%7Bid%7D`).
                let pointer = percent_encoding::percent_decode_str(pointer)
                    .decode_utf8()
                    .map_err(|_| format!("`$ref` {reference:?} is not UTF-8 once decoded"))?;
                let target = root
                    .pointer(&pointer)
                    .ok_or_else(|| format!("`$ref` {reference:?} points at nothing"))?;
                within.push(reference.to_owned());
                let mut resolved = resolve(root, target, within, budget)?;
                within.pop();
                // 3.1 lets a `$ref` carry siblings (a description): they win.
                if let Value::Object(resolved) = &mut resolved {
                    for (key, value) in object.iter().filter(|(key, _)| *key != "$ref") {
                        budget.spend(key.len() + 4)?;
                        resolved.insert(key.clone(), resolve(root, value, within, budget)?);
                    }
                }
                return Ok(resolved);
            }
            budget.spend(2)?;
            let mut out = Map::with_capacity(object.len());
            for (key, value) in object {
                // `"key":` and a comma.
                budget.spend(key.len() + 4)?;
                out.insert(key.clone(), resolve(root, value, within, budget)?);
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => {
            budget.spend(2 + items.len())?;
            items
                .iter()
                .map(|item| resolve(root, item, within, budget))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array)
        }
        other => {
            budget.spend(Budget::scalar(other))?;
            Ok(other.clone())
        }
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

    /// A document of `uses` places that each refer to `Mid`, a schema of `fan` properties that
    /// each refer to `Big`, a schema of about `big` bytes.
    fn fanned(uses: usize, fan: usize, big: usize) -> String {
        let leaf = json!({"type": "string", "description": "d".repeat(30)});
        let big: Map<String, Value> = (0..big / 60)
            .map(|i| (format!("p{i}"), leaf.clone()))
            .collect();
        let mid: Map<String, Value> = (0..fan)
            .map(|i| (format!("m{i}"), json!({"$ref": "#/components/schemas/Big"})))
            .collect();
        let paths: Map<String, Value> = (0..uses)
            .map(|i| {
                let get = json!({"get": {"responses": {"200": {"content": {"application/json":
                    {"schema": {"$ref": "#/components/schemas/Mid"}}}}}}});
                (format!("/p{i}"), get)
            })
            .collect();
        json!({
            "openapi": "3.1.0",
            "paths": paths,
            "components": {"schemas": {
                "Big": {"type": "object", "properties": big},
                "Mid": {"type": "object", "properties": mid}
            }}
        })
        .to_string()
    }

    #[test]
    fn a_ref_bomb_is_refused_by_the_size_it_expands_to() {
        // About 45 KB that expand to 60 × 1,000 copies of a 4 KB schema (240 MB).
        let bomb = fanned(60, 1_000, 4_096);
        assert!(bomb.len() < 64 * 1024, "{}", bomb.len());
        let err = parse(&bomb).unwrap_err();
        assert!(
            err.contains("expand it by more than 32 MiB") && err.contains("fewer places"),
            "{err}"
        );
        // YAML's aliases multiply the same way: 1,000 aliases of a 4,000-item list.
        let items: Vec<String> = (0..4_000).map(|i| format!("item{i}")).collect();
        let aliases = vec!["*big"; 1_000].join(", ");
        let laughs = format!(
            "openapi: 3.1.0\nx-big: &big [{}]\nx-many: [{aliases}]\n",
            items.join(", ")
        );
        let err = parse(&laughs).unwrap_err();
        assert!(
            err.contains("its YAML aliases (`*name`) expand it by more than 32 MiB"),
            "{err}"
        );
        // Many `$ref`s to small schemas are no bomb: more than the 100,000 once counted.
        let many = fanned(101, 1_000, 60);
        let document = parse(&many).unwrap();
        let copy = &document["paths"]["/p100"]["get"]["responses"]["200"]["content"];
        let mid = &copy["application/json"]["schema"]["properties"];
        assert_eq!(mid["m999"]["properties"]["p0"]["type"], "string");
    }
}
