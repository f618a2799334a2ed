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
    parse(&text).map_err(|why| why.at(source))
}

/// What is wrong with a document's text.
#[derive(Debug)]
pub(crate) enum Wrong {
    /// It is something else: what it is (`an HTML page`, `a JSON list`).
    NotOpenApi(&'static str),
    /// It is one, or may be, and this is wrong with it.
    Other(String),
}

impl Wrong {
    /// What is wrong with the document at `source`, said.
    pub(crate) fn at(self, source: &str) -> String {
        match self {
            Wrong::NotOpenApi(what) => format!(
                "{source} is not an OpenAPI document: it is {what} (expected an object with `openapi: 3.x`)"
            ),
            Wrong::Other(why) => format!("the OpenAPI document {source}: {why}"),
        }
    }
}

impl From<String> for Wrong {
    fn from(why: String) -> Wrong {
        Wrong::Other(why)
    }
}

/// What `text` is when it is plainly not an OpenAPI document before it is parsed: markup.
fn markup(text: &str) -> Option<&'static str> {
    let start = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    let head = start.get(..start.len().min(512))?.to_ascii_lowercase();
    if !head.starts_with('<') {
        return None;
    }
    Some(
        match head.contains("<html") || head.starts_with("<!doctype html") {
            true => "an HTML page",
            false => "XML or HTML",
        },
    )
}

/// What a parsed document that is not an object is.
fn kind(document: &Value, json: bool) -> &'static str {
    match (document, json) {
        (Value::Array(_), true) => "a JSON list",
        (Value::Array(_), false) => "a list",
        (Value::String(_), _) => "plain text",
        (Value::Number(_), _) => "a number",
        (Value::Bool(_), _) => "true or false",
        (Value::Null, _) => "empty",
        (Value::Object(_), _) => "an object without `openapi`",
    }
}

/// `text` as JSON or YAML, its version checked, its `$ref`s resolved.
pub(crate) fn parse(text: &str) -> Result<Value, Wrong> {
    if let Some(what) = markup(text) {
        return Err(Wrong::NotOpenApi(what));
    }
    let start = text.trim_start();
    let json = start.starts_with('{') || start.starts_with('[');
    let document: Value = if json {
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
    let Some(object) = document.as_object() else {
        return Err(Wrong::NotOpenApi(kind(&document, json)));
    };
    if !object.contains_key("openapi") && !object.contains_key("swagger") {
        return Err(Wrong::NotOpenApi(kind(&document, json)));
    }
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
        return Err(Wrong::Other(format!(
            "{said}: an OpenAPI 3.0 or 3.1 document is needed (convert a Swagger 2.0 one first)"
        )));
    }
    let mut budget = Budget::past(text.len(), "its `$ref`s");
    Ok(resolve(&document, &document, &mut Vec::new(), &mut budget)?)
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
        assert!(parse(swagger).unwrap_err().at("d").contains("Swagger 2.0"));
        let remote = r#"{"openapi": "3.1.0", "x": {"$ref": "other.yaml#/a"}}"#;
        assert!(
            parse(remote)
                .unwrap_err()
                .at("d")
                .contains("another document")
        );
        let encoded = r##"{"openapi": "3.1.0", "paths": {"/n/{id}": {"get": {"x-a": 1}}},
            "x": {"$ref": "#/paths/~1n~1%7Bid%7D/get"}}"##;
        assert_eq!(parse(encoded).unwrap()["x"], json!({"x-a": 1}));
        let dangling = r##"{"openapi": "3.1.0", "x": {"$ref": "#/components/none"}}"##;
        assert!(
            parse(dangling)
                .unwrap_err()
                .at("d")
                .contains("points at nothing")
        );
        assert!(
            parse("openapi: [")
                .unwrap_err()
                .at("d")
                .contains("not YAML")
        );
    }

    #[test]
    fn what_is_not_an_openapi_document_says_what_it_is() {
        let said = |text: &str| parse(text).unwrap_err().at("http://h/docs");
        let expected = "(expected an object with `openapi: 3.x`)";
        let page = said("<!DOCTYPE html>\n<html><head><title>Swagger UI</title></head></html>");
        assert_eq!(
            page,
            format!("http://h/docs is not an OpenAPI document: it is an HTML page {expected}")
        );
        assert!(said("  <html>\n<body>x: y</body>").contains("it is an HTML page"));
        assert!(said("<?xml version=\"1.0\"?><a/>").contains("it is XML or HTML"));
        assert!(said(r#"[{"openapi": "3.1.0"}]"#).contains("it is a JSON list"));
        assert!(said("- a\n- b\n").contains("it is a list"));
        assert!(said("Not Found").contains("it is plain text"));
        let other = said(r#"{"name": "x", "version": "1"}"#);
        assert!(
            other.contains("it is an object without `openapi`"),
            "{other}"
        );
        assert!(other.contains(expected), "{other}");
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
        let err = parse(&bomb).unwrap_err().at("d");
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
        let err = parse(&laughs).unwrap_err().at("d");
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
