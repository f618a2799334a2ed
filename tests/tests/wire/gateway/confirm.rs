//! One question per call: under the gateway's `--confirm destructive`, an upstream that
//! confirms its own calls (a toolsmith server says so in the tool's listing) is not asked
//! about a second time by the gateway, unless the overrides say otherwise.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith::Server;
use toolsmith::server::Confirm;
use toolsmith::testing::{Answer, Client};
use toolsmith_gateway::Overrides;

use super::notes;

/// The questions the client is asked while `notes_delete_note` deletes note 1 through a
/// gateway with `--confirm destructive` and `overrides` (every question accepted), and
/// whether the gateway's own listing says the tool is confirmed.
async fn questions_of_one_delete(overrides: &str) -> (Vec<String>, bool) {
    let mounted = notes()
        .overrides(Overrides::from_toml(overrides).unwrap())
        .connect()
        .await
        .unwrap();
    let gateway = Server::with_registry(mounted.registry().unwrap()).confirm(Confirm::Destructive);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::connect(gateway)
        .await
        .unwrap()
        .on_confirm(move |question| {
            seen.lock().unwrap().push(question.message.clone());
            Answer::Accept
        });
    let listed = client.list_tools().await.unwrap();
    let delete = listed
        .iter()
        .find(|tool| tool.name == "notes_delete_note")
        .unwrap();
    let says_confirmed = delete
        .meta
        .as_ref()
        .and_then(|meta| meta.get(toolsmith::tool::META_CONFIRMS))
        == Some(&json!(true));
    let deleted = client
        .call("notes_delete_note", json!({"note_id": 1}))
        .await
        .unwrap();
    assert!(deleted.text().contains("deleted"), "{}", deleted.text());
    let gone = client.read_resource("notes://1").await;
    assert!(gone.is_err(), "the delete ran at the upstream: {gone:?}");
    let asked = asked.lock().unwrap().clone();
    (asked, says_confirmed)
}

#[tokio::test]
async fn an_upstream_that_confirms_its_own_calls_is_asked_about_once_per_call() {
    // The notes server confirms its deletes and says so: only its own question is asked.
    let (asked, listed_confirmed) = questions_of_one_delete("[tools]").await;
    assert_eq!(asked, ["Delete note 1?"], "one question, the upstream's");
    assert!(
        listed_confirmed,
        "the gateway's listing says it is confirmed"
    );
}

#[tokio::test]
async fn the_overrides_make_the_gateway_ask_as_well() {
    // The operator takes no upstream's word: the gateway's policy asks, then the upstream.
    let (asked, _) =
        questions_of_one_delete("[tools.\"notes_*\"]\nupstream_confirms = false\n").await;
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(
        asked[0].contains("notes_delete_note"),
        "the gateway's: {asked:?}"
    );
    assert_eq!(asked[1], "Delete note 1?", "then the upstream's: {asked:?}");
    // A question of the gateway's own, on top of the upstream's: both are asked.
    let (asked, listed_confirmed) = questions_of_one_delete(
        "[tools.notes_delete_note]\nconfirm = \"Really delete note {note_id}?\"\n",
    )
    .await;
    assert_eq!(asked, ["Really delete note 1?", "Delete note 1?"]);
    assert!(listed_confirmed);
}
