//! Approvals a hostile caller tries to stretch: a remembered rule approval reused for other
//! arguments, a deny rule after a grant, a number written another way, a string that looks
//! like a number.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::json;
use toolsmith::approve::Rules;
use toolsmith::server::Confirm;
use toolsmith::testing::{Answer, Client};
use toolsmith_examples::store::Notes;

use super::{client, refusal};

/// The notes tools (`delete_note(note_id: u64)`), confirmed when destructive, with `rules`;
/// the user at the client declines everything: only a rule or a grant runs a deletion.
async fn notes(rules: &str) -> (Client, toolsmith::approve::Grants) {
    let server =
        toolsmith::Server::with_registry(toolsmith_tests::declared_in("toolsmith_examples"))
            .state(Notes::seeded())
            .confirm(Confirm::Destructive)
            .approver(Rules::from_toml(rules).unwrap());
    let grants = server.grants();
    let client = Client::connect(server)
        .await
        .unwrap()
        .on_confirm(|_| Answer::Decline);
    (client, grants)
}

/// Whether note `id` is still there.
async fn kept(client: &Client, id: u64) -> bool {
    client
        .call("get_note", json!({ "note_id": id }))
        .await
        .is_ok()
}

/// The issue's own rules: a remembered approval of `delete_note(1)` is remembered for
/// `note_id = 1` only; the deny rule of note 3 and the catch-all deny still refuse.
#[tokio::test]
async fn a_remembered_rule_approval_holds_for_the_arguments_it_matched_only() {
    let (client, grants) = notes(
        r#"
        [[rule]]
        tools = ["delete_note"]
        arguments = { note_id = "3" }
        decision = "deny"
        reason = "note 3 is kept"

        [[rule]]
        tools = ["delete_note"]
        arguments = { note_id = "1" }
        decision = "allow"
        remember_secs = 600

        [[rule]]
        tools = ["delete_note"]
        decision = "deny"
        reason = "notes are kept"
        "#,
    )
    .await;
    client
        .call("delete_note", json!({"note_id": 1}))
        .await
        .expect("the rule allows note 1");
    let three = client
        .call("delete_note", json!({"note_id": 3}))
        .await
        .unwrap_err();
    assert!(refusal(&three).contains("note 3 is kept"), "{three}");
    let two = client
        .call("delete_note", json!({"note_id": 2}))
        .await
        .unwrap_err();
    assert!(refusal(&two).contains("notes are kept"), "{two}");
    assert!(kept(&client, 2).await && kept(&client, 3).await);
    // The grant remembered is note 1's, and no other.
    let listed = grants.list().await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].tool, "delete_note");
    assert_eq!(listed[0].arguments["note_id"], 1);
    assert!(
        !grants
            .holds(&toolsmith::context::Caller::anonymous(), "delete_note")
            .await
    );
}

/// A rule that allows a glob of values and is remembered remembers the value it allowed:
/// a grant made for `tmp-1` does not let `thesis` go.
#[tokio::test]
async fn a_remembered_glob_approval_holds_for_the_value_it_matched() {
    let rules = Rules::from_toml(
        r#"
        [[rule]]
        tools = ["delete_draft"]
        arguments = { draft = "tmp-*" }
        decision = "allow"
        remember_secs = 3600
        "#,
    )
    .unwrap();
    let server = toolsmith_tests::server_of(super::TOOLS).approver(rules);
    let grants = server.grants();
    let (client, asked) = client(server, Answer::Decline).await;
    let ran = client.call("delete_draft", json!({"draft": "tmp-1"})).await;
    assert_eq!(ran.unwrap().text(), "deleted tmp-1");
    let thesis = client
        .call("delete_draft", json!({"draft": "thesis"}))
        .await
        .unwrap_err();
    assert!(refusal(&thesis).contains("declined"), "{thesis}");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "the user was asked for the thesis"
    );
    let listed = grants.list().await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        listed[0].arguments,
        *json!({"draft": "tmp-1"}).as_object().unwrap()
    );
}

/// A deny rule on a number holds however the number is written (`1.0`, `1e0`: the tool
/// reads them as 1); a string argument is matched as the string it is.
#[tokio::test]
async fn a_deny_rule_on_a_number_is_not_bypassed_by_writing_it_otherwise() {
    let (client, _) = notes(
        r#"
        [[rule]]
        tools = ["delete_note"]
        arguments = { note_id = "1" }
        decision = "deny"
        reason = "note 1 is kept"

        [[rule]]
        tools = ["delete_note"]
        decision = "allow"
        "#,
    )
    .await;
    for written in ["1", "1.0", "1e0", "1.00"] {
        let arguments: serde_json::Value =
            serde_json::from_str(&format!(r#"{{"note_id": {written}}}"#)).unwrap();
        let err = client.call("delete_note", arguments).await.unwrap_err();
        assert!(refusal(&err).contains("note 1 is kept"), "{written}: {err}");
    }
    assert!(kept(&client, 1).await, "note 1 is still there");
    client
        .call("delete_note", json!({"note_id": 2.0}))
        .await
        .expect("note 2 may go");
    assert!(!kept(&client, 2).await);

    // A string that looks like a number is the string it is (the tool takes a string).
    let rules = Rules::from_toml(
        "[[rule]]\narguments = { draft = \"1\" }\ndecision = \"deny\"\nreason = \"kept\"\n\
         [[rule]]\ndecision = \"allow\"\n",
    )
    .unwrap();
    let server = toolsmith_tests::server_of(super::TOOLS).approver(rules);
    let (drafts, _) = client_of(server).await;
    let one = drafts.call("delete_draft", json!({"draft": "1"})).await;
    assert!(refusal(&one.unwrap_err()).contains("kept"));
    for other in ["1.0", "1e0", "01"] {
        let ran = drafts.call("delete_draft", json!({ "draft": other })).await;
        assert_eq!(ran.unwrap().text(), format!("deleted {other}"));
    }
}

async fn client_of(server: toolsmith::Server) -> (Client, Arc<std::sync::atomic::AtomicUsize>) {
    client(server, Answer::Decline).await
}
