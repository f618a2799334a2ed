//! A tool reshaped by the overrides file, through the gateway in front of the notes example:
//! a new name and description, an argument renamed and described anew, one with a default,
//! one hidden with its value fixed; the client sees the new shape, the upstream gets its own,
//! and a confirmation question names the arguments as the client sees them.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith::Server;
use toolsmith::testing::{Answer, Client};
use toolsmith_gateway::Overrides;

use super::notes;

const OVERRIDES: &str = r#"
[tools.notes_search_notes]
name = "find_notes"
description = "Find notes by a word of their title or body."
arguments.query = { rename = "word", description = "The word to look for." }

[tools.notes_create_note]
confirm = "Create {heading}?"
arguments.title = { rename = "heading" }
arguments.body = { value = "Filed by the gateway." }
arguments.tags = { default = ["gateway"] }
"#;

#[tokio::test]
async fn the_client_sees_the_new_shape_and_the_upstream_gets_its_own() {
    let mounted = notes()
        .overrides(Overrides::from_toml(OVERRIDES).unwrap())
        .connect()
        .await
        .unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap()
        .on_confirm(move |question| {
            seen.lock().unwrap().push(question.message.clone());
            Answer::Accept
        });
    let listed = client.list_tools().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"find_notes") && !names.contains(&"notes_search_notes"),
        "{names:?}"
    );
    let find = listed.iter().find(|t| t.name == "find_notes").unwrap();
    assert_eq!(
        find.description.as_deref(),
        Some("Find notes by a word of their title or body.")
    );
    let schema = serde_json::Value::Object((*find.input_schema).clone());
    assert_eq!(
        schema["properties"]["word"]["description"],
        "The word to look for."
    );
    assert!(schema["properties"].get("query").is_none(), "{schema}");
    assert_eq!(schema["required"], json!(["word"]));
    let create = listed
        .iter()
        .find(|t| t.name == "notes_create_note")
        .unwrap();
    let schema = serde_json::Value::Object((*create.input_schema).clone());
    assert!(
        schema["properties"].get("body").is_none(),
        "hidden: {schema}"
    );
    assert!(
        !schema.to_string().contains("Filed by the gateway"),
        "{schema}"
    );
    assert_eq!(schema["properties"]["tags"]["default"], json!(["gateway"]));
    assert_eq!(schema["required"], json!(["heading"]));

    let found = client
        .call("find_notes", json!({"word": "milk"}))
        .await
        .unwrap();
    assert!(found.text().contains("Groceries"), "{}", found.text());
    // The old name of an argument is no longer one.
    let wrong = client
        .call("find_notes", json!({"query": "milk"}))
        .await
        .unwrap_err();
    assert!(wrong.message().contains("word"), "{wrong}");

    let created = client
        .call("notes_create_note", json!({"heading": "Q3 plan"}))
        .await
        .unwrap();
    let note = created.structured().unwrap();
    assert_eq!(note["title"], "Q3 plan");
    assert_eq!(note["body"], "Filed by the gateway.");
    assert_eq!(note["tags"], json!(["gateway"]));
    assert_eq!(*asked.lock().unwrap(), ["Create Q3 plan?"]);
    // The body is fixed: a client's own is not the upstream's.
    let sneaked = client
        .call("notes_create_note", json!({"heading": "x", "body": "mine"}))
        .await
        .unwrap_err();
    assert!(sneaked.message().contains("body"), "{sneaked}");
}

#[tokio::test]
async fn an_override_that_does_not_fit_stops_the_upstream_naming_it() {
    let overrides = "[tools.notes_get_note]\narguments.id = { rename = \"n\" }\n";
    let err = notes()
        .overrides(Overrides::from_toml(overrides).unwrap())
        .connect()
        .await
        .map(drop)
        .expect_err("refused");
    let err = err.to_string();
    assert!(
        err.contains("notes_get_note") && err.contains("note_id"),
        "{err}"
    );
    // A new name another tool of the upstream is served under, whichever comes first.
    let taken = "[tools.notes_create_note]\nname = \"notes_search_notes\"\n";
    let err = notes()
        .overrides(Overrides::from_toml(taken).unwrap())
        .connect()
        .await
        .map(drop)
        .expect_err("refused");
    assert!(err.to_string().contains("another tool's"), "{err}");
    let err = Overrides::from_toml("[tools.\"notes_*\"]\nname = \"x\"\n").unwrap_err();
    assert!(err.contains("exact name"), "{err}");
}
