//! `json_schema = "2020-12"`: the input schema names its dialect and keeps named subschemas
//! in `$defs`; without it, schemas stay portable (no `$schema`, subschemas inlined). Either
//! way the arguments are checked the same.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolsmith::testing::{CallError, Client};
use toolsmith::{error::ErrorKind, tool};

/// A place.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Place {
    city: String,
}

/// Visit a place (declared dialect).
#[tool(read_only, closed_world, json_schema = "2020-12")]
fn visit_declared(place: Place) -> String {
    place.city
}

/// Visit a place (portable).
#[tool(read_only, closed_world)]
fn visit_portable(place: Place) -> String {
    place.city
}

#[tokio::test]
async fn a_declared_dialect_keeps_defs_and_says_so() {
    let client = Client::connect(toolsmith_tests::server_of(module_path!()))
        .await
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    let schema = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        serde_json::Value::Object((*tool.input_schema).clone())
    };
    let declared = schema("visit_declared");
    assert_eq!(
        declared["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        declared["properties"]["place"],
        json!({"$ref": "#/$defs/Place"})
    );
    assert_eq!(
        declared["$defs"]["Place"]["properties"]["city"]["type"],
        "string"
    );
    let portable = schema("visit_portable");
    assert!(
        portable.get("$schema").is_none() && portable.get("$defs").is_none(),
        "{portable}"
    );
    assert_eq!(
        portable["properties"]["place"]["properties"]["city"]["type"],
        "string"
    );

    let visited = client
        .call("visit_declared", json!({"place": {"city": "Porto"}}))
        .await
        .unwrap();
    assert_eq!(visited.text(), "Porto");
    let wrong = client
        .call("visit_declared", json!({"place": 3}))
        .await
        .unwrap_err();
    let CallError::Tool {
        kind: ErrorKind::InvalidArguments,
        message,
        ..
    } = wrong
    else {
        panic!("{wrong}")
    };
    assert!(message.contains("expected an object"), "{message}");
}
