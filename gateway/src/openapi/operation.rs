//! The operations of a resolved OpenAPI document as tools: a name from `operationId`, a
//! title from `summary`, a description, an input schema from the parameters and the request
//! body, an output schema from the JSON answer, hints from the HTTP method; and the route a
//! call takes.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rmcp::model::{JsonObject, ToolAnnotations};
use serde_json::{Map, Value, json};

use super::schema::{portable, portable_output, portable_request};
use super::{OpenApi, Route};

/// The methods an OpenAPI path item may hold, in the order tools are made.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Where a parameter goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum In {
    Path,
    Query,
    Header,
}

/// A parameter of a route: its name in the request, the argument that holds it (its name,
/// unless a parameter elsewhere has that name: `id_query` beside the path's `id`), and where
/// it goes.
#[derive(Clone, Debug)]
pub(crate) struct Param {
    pub(crate) name: String,
    pub(crate) argument: String,
    pub(crate) at: In,
}

/// How a route sends its request body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    Json,
    Form,
}

/// A route's request body: the argument that holds it, and how it is sent.
#[derive(Clone, Debug)]
pub(crate) struct Body {
    pub(crate) argument: String,
    pub(crate) kind: BodyKind,
}

/// The hints an HTTP method implies: (read-only, destructive, idempotent). GET, HEAD,
/// OPTIONS and TRACE only read; PUT and DELETE may be repeated; DELETE removes and PUT
/// replaces; POST and PATCH are taken as destructive (the specification's cautious default)
/// unless the document or the overrides say otherwise.
pub(crate) fn method_hints(method: &str) -> (bool, bool, bool) {
    match method {
        "get" | "head" | "options" | "trace" => (true, false, true),
        "put" | "delete" => (false, true, true),
        _ => (false, true, false),
    }
}

/// Every operation `api` selects, as a tool description and its route, by tool name; an
/// error names two operations that would be one tool. `schemes`: the document's security
/// schemes (their headers are the configuration's, never arguments).
pub(crate) fn operations(
    api: &OpenApi,
    upstream: &str,
    document: &Value,
    schemes: &HashMap<String, Value>,
) -> Result<Vec<(rmcp::model::Tool, Route)>, String> {
    let empty = Map::new();
    let credential_headers: Vec<String> = schemes
        .values()
        .filter(|s| s.get("type").and_then(Value::as_str) == Some("apiKey"))
        .filter(|s| s.get("in").and_then(Value::as_str) == Some("header"))
        .filter_map(|s| s.get("name").and_then(Value::as_str))
        .map(str::to_ascii_lowercase)
        .chain(["authorization".to_owned()])
        .collect();
    let global_security = document.get("security");
    let mut made: BTreeMap<String, (String, rmcp::model::Tool, Route)> = BTreeMap::new();
    let paths = document
        .get("paths")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        let shared = item.get("parameters").and_then(Value::as_array);
        for method in METHODS {
            let Some(operation) = item.get(method).and_then(Value::as_object) else {
                continue;
            };
            let shown = format!("{} {path}", method.to_ascii_uppercase());
            if !api.selects(method, path, operation) {
                continue;
            }
            let name = tool_name(operation, method, path);
            let mut parameters: Vec<&Value> = shared.into_iter().flatten().collect();
            for own in operation
                .get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                // An operation's parameter replaces the path item's of the same name and place.
                let key = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
                parameters.retain(|p| key(p) != key(own));
                parameters.push(own);
            }
            let mut properties = Map::new();
            let mut required = Vec::new();
            let mut params = Vec::new();
            for parameter in parameters {
                let Some(param_name) = parameter.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let at = match parameter.get("in").and_then(Value::as_str) {
                    Some("path") => In::Path,
                    Some("query") => In::Query,
                    Some("header")
                        if !credential_headers.contains(&param_name.to_ascii_lowercase()) =>
                    {
                        In::Header
                    }
                    // Cookies, and the credentials the configuration gives, are not the
                    // model's to set.
                    _ => continue,
                };
                let mut schema = parameter
                    .get("schema")
                    .or_else(|| first_content_schema(parameter.get("content")))
                    .map(portable)
                    .unwrap_or_else(|| json!({"type": "string"}));
                describe(&mut schema, parameter.get("description"));
                // A path and a query parameter may share a name: each its own argument.
                let mut argument = param_name.to_owned();
                while properties.contains_key(&argument) {
                    argument.push_str(match at {
                        In::Path => "_path",
                        In::Query => "_query",
                        In::Header => "_header",
                    });
                }
                if at == In::Path || parameter.get("required") == Some(&Value::Bool(true)) {
                    required.push(Value::String(argument.clone()));
                }
                properties.insert(argument.clone(), schema);
                params.push(Param {
                    name: param_name.to_owned(),
                    argument,
                    at,
                });
            }
            let mut body = None;
            if let Some(request) = operation.get("requestBody") {
                let content = request.get("content").and_then(Value::as_object);
                let chosen = content.and_then(|content| {
                    content
                        .iter()
                        .find(|(kind, _)| is_json(kind))
                        .map(|(_, media)| (BodyKind::Json, media))
                        .or_else(|| {
                            content
                                .get("application/x-www-form-urlencoded")
                                .map(|media| (BodyKind::Form, media))
                        })
                });
                let Some((kind, media)) = chosen else {
                    tracing::warn!(upstream, operation = %shown, "left out: its request body is neither JSON nor a form");
                    continue;
                };
                let argument = if properties.contains_key("body") {
                    "request_body"
                } else {
                    "body"
                };
                let mut schema = media
                    .get("schema")
                    .map(portable_request)
                    .unwrap_or_else(|| json!({"type": "object"}));
                describe(&mut schema, request.get("description"));
                if request.get("required") == Some(&Value::Bool(true)) {
                    required.push(Value::String(argument.to_owned()));
                }
                properties.insert(argument.to_owned(), schema);
                body = Some(Body {
                    argument: argument.to_owned(),
                    kind,
                });
            }
            let mut input = JsonObject::new();
            input.insert("type".into(), json!("object"));
            input.insert("properties".into(), Value::Object(properties));
            if !required.is_empty() {
                input.insert("required".into(), Value::Array(required));
            }
            input.insert("additionalProperties".into(), Value::Bool(false));

            let summary = operation.get("summary").and_then(Value::as_str);
            let description = operation
                .get("description")
                .and_then(Value::as_str)
                .or(summary)
                .unwrap_or_default();
            let description = if description.is_empty() {
                format!("`{shown}`")
            } else {
                format!("{}\n\n`{shown}`", description.trim_end())
            };
            let (read_only, destructive, idempotent) = method_hints(method);
            let mut annotations = ToolAnnotations::new()
                .read_only(read_only)
                .destructive(destructive)
                .idempotent(idempotent)
                .open_world(api.open_world);
            annotations = super::hints::stated(annotations, operation, &shown)?;
            let title = annotations.title.as_deref().or(summary).map(str::to_owned);
            let mut tool = rmcp::model::Tool::new(name.clone(), description, Arc::new(input))
                .with_annotations(annotations);
            if let Some(title) = title {
                tool = tool.with_title(title);
            }
            let output = answer_schema(operation);
            if let Some(output) = &output {
                tool = tool.with_raw_output_schema(Arc::new(output.clone()));
            }
            let security = operation
                .get("security")
                .or(global_security)
                .map(requirements)
                .unwrap_or_default();
            let route = Route {
                method: reqwest::Method::from_bytes(method.to_ascii_uppercase().as_bytes())
                    .map_err(|err| err.to_string())?,
                path: path.clone(),
                params,
                body,
                security,
                structured: output.is_some(),
            };
            if let Some((other, _, _)) = made.get(&name) {
                return Err(format!(
                    "the operations {other} and {shown} both become the tool '{name}': give one an `operationId` of its own, or leave one out"
                ));
            }
            made.insert(name, (shown, tool, route));
        }
    }
    Ok(made
        .into_values()
        .map(|(_, tool, route)| (tool, route))
        .collect())
}

/// An operation's tool name: its `operationId`, else its method and path, each character a
/// tool name may not hold (`A-Z a-z 0-9 _ - .`) written as `_`.
fn tool_name(operation: &Map<String, Value>, method: &str, path: &str) -> String {
    let raw = match operation.get("operationId").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => format!("{method}_{}", path.trim_matches('/')),
    };
    let mut name = String::with_capacity(raw.len());
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
            c
        } else {
            '_'
        };
        if !(c == '_' && name.ends_with('_')) {
            name.push(c);
        }
    }
    name.trim_end_matches('_').to_owned()
}

/// The schema of an operation's answer, when every 2xx answer it declares is a JSON object
/// (the first one's): with an output schema, every successful call must have structured
/// content, so an operation that may answer with no body (`204`) or anything else has none.
fn answer_schema(operation: &Map<String, Value>) -> Option<JsonObject> {
    let responses = operation.get("responses")?.as_object()?;
    let mut codes: Vec<&String> = responses
        .keys()
        .filter(|code| code.starts_with('2'))
        .collect();
    codes.sort();
    let mut schemas = codes.iter().map(|code| {
        let schema = first_content_schema(responses.get(*code)?.get("content"))?;
        match portable_output(schema) {
            Value::Object(object) if object.get("type") == Some(&json!("object")) => Some(object),
            _ => None,
        }
    });
    let first = schemas.next()??;
    schemas.all(|other| other.is_some()).then_some(first)
}

/// The schema of a `content` map's JSON media type.
fn first_content_schema(content: Option<&Value>) -> Option<&Value> {
    content?
        .as_object()?
        .iter()
        .find(|(kind, _)| is_json(kind))
        .and_then(|(_, media)| media.get("schema"))
}

fn is_json(media_type: &str) -> bool {
    let essence = media_type.split(';').next().unwrap_or_default().trim();
    essence == "application/json" || essence.ends_with("+json")
}

/// `description` on `schema` when it has none of its own.
fn describe(schema: &mut Value, description: Option<&Value>) {
    if let (Value::Object(object), Some(Value::String(text))) = (schema, description)
        && !object.contains_key("description")
    {
        object.insert("description".into(), Value::String(text.clone()));
    }
}

/// A `security` list: its alternatives, each the names of the schemes it needs together
/// (an empty one: none needed).
fn requirements(security: &Value) -> Vec<Vec<String>> {
    security
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .map(|requirement| requirement.keys().cloned().collect())
        .collect()
}

/// Schemes by name, as the document declares them.
pub(crate) fn schemes(document: &Value) -> HashMap<String, Value> {
    document
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
        .map(|s| s.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_tool_name_rules() {
        let op = |id: &str| json!({"operationId": id}).as_object().cloned().unwrap();
        assert_eq!(tool_name(&op("listNotes"), "get", "/notes"), "listNotes");
        assert_eq!(
            tool_name(&op("read_note_notes__id__get"), "get", "/n"),
            "read_note_notes_id_get"
        );
        assert_eq!(tool_name(&op("a b/c"), "get", "/"), "a_b_c");
        let none = Map::new();
        assert_eq!(tool_name(&none, "delete", "/notes/{id}"), "delete_notes_id");
    }

    #[test]
    fn two_operations_of_one_name_are_an_error_naming_both() {
        let document = json!({"openapi": "3.1.0", "paths": {
            "/a": {"get": {"operationId": "fetch"}},
            "/b": {"post": {"operationId": "fetch"}}
        }});
        let err =
            operations(&OpenApi::new("x.json"), "x", &document, &schemes(&document)).unwrap_err();
        assert!(
            err.contains("GET /a") && err.contains("POST /b") && err.contains("'fetch'"),
            "{err}"
        );
        let only_get = OpenApi::new("x.json").only_methods(["GET"]);
        assert_eq!(
            operations(&only_get, "x", &document, &schemes(&document))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn a_path_and_a_query_parameter_of_one_name_are_two_arguments() {
        let document = json!({"openapi": "3.1.0", "paths": {"/notes/{id}": {"get": {
            "operationId": "get_note",
            "parameters": [
                {"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}},
                {"name": "id", "in": "query", "schema": {"type": "string"}}
            ]
        }}}});
        let made = operations(&OpenApi::new("x.json"), "x", &document, &schemes(&document));
        let (tool, route) = &made.unwrap()[0];
        let properties = tool.input_schema["properties"].as_object().unwrap();
        assert_eq!(properties["id"]["type"], "integer");
        assert_eq!(properties["id_query"]["type"], "string");
        assert_eq!(tool.input_schema["required"], json!(["id"]));
        let wired: Vec<(&str, &str, In)> = route
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.argument.as_str(), p.at))
            .collect();
        assert_eq!(
            wired,
            [("id", "id", In::Path), ("id", "id_query", In::Query)]
        );
    }

    #[test]
    fn an_output_schema_only_when_every_success_is_a_json_object() {
        let object = json!({"content": {"application/json": {"schema": {
            "type": "object", "properties": {"id": {"type": "integer"}}
        }}}});
        let list = json!({"content": {"application/json": {"schema": {"type": "array"}}}});
        let op = |responses: Value| {
            json!({"responses": responses})
                .as_object()
                .cloned()
                .unwrap()
        };
        assert!(answer_schema(&op(json!({"200": object, "404": {}}))).is_some());
        assert!(
            answer_schema(&op(json!({"200": object, "204": {"description": "gone"}}))).is_none()
        );
        assert!(answer_schema(&op(json!({"200": list}))).is_none());
        assert!(answer_schema(&op(json!({"200": object, "201": list}))).is_none());
    }

    #[test]
    fn an_operation_states_its_hints_under_either_extension() {
        let document = json!({"openapi": "3.1.0", "paths": {"/notes": {
            "post": {"operationId": "add", "summary": "Add",
                     "x-mcp-annotations": {"destructiveHint": false, "title": "Add a note"}},
            "put": {"operationId": "put", "x-mcp-annotations": {"idempotentHint": false},
                    "x-mcp-hints": {"idempotentHint": true}}
        }}});
        let made = operations(&OpenApi::new("x.json"), "x", &document, &schemes(&document));
        let made = made.unwrap();
        let hints = |name: &str| {
            let (tool, _) = made.iter().find(|(t, _)| t.name == name).unwrap();
            (tool.annotations.clone().unwrap(), tool.title.clone())
        };
        let (add, title) = hints("add");
        assert_eq!(add.destructive_hint, Some(false));
        assert_eq!(add.idempotent_hint, Some(false));
        assert_eq!(title.as_deref(), Some("Add a note"));
        assert_eq!(hints("put").0.idempotent_hint, Some(true));
    }

    #[test]
    fn methods_imply_their_hints() {
        assert_eq!(method_hints("get"), (true, false, true));
        assert_eq!(method_hints("head"), (true, false, true));
        assert_eq!(method_hints("put"), (false, true, true));
        assert_eq!(method_hints("delete"), (false, true, true));
        assert_eq!(method_hints("post"), (false, true, false));
        assert_eq!(method_hints("patch"), (false, true, false));
    }
}
