//! `confirm_with = function`: the confirmation's question is made by a function of the
//! tool's own parameters, the server's state among them, so that it can name what the
//! arguments only point at ("Delete bookmark 'Rust blog'?", not "Delete bookmark 1?"); the
//! user, the approvers and the hint-derived behaviour all see a tool that confirms.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith::approve::{Approval, Decision};
use toolsmith::testing::{Answer, Client};
use toolsmith::{State, tool};

/// The bookmarks, by id.
struct Bookmarks(Mutex<Vec<(u64, String)>>);

/// The question asked before `delete_bookmark` runs: the bookmark's title, read from the
/// store.
fn bookmark_question(bookmarks: State<Bookmarks>, id: u64) -> String {
    match bookmarks.0.lock().unwrap().iter().find(|(at, _)| *at == id) {
        Some((_, title)) => format!("Delete bookmark '{title}'?"),
        None => format!("Delete bookmark {id} (there is none)?"),
    }
}

/// Delete a bookmark.
#[tool(destructive, idempotent, closed_world, confirm_with = bookmark_question)]
fn delete_bookmark(bookmarks: State<Bookmarks>, id: u64) -> bool {
    let mut list = bookmarks.0.lock().unwrap();
    let before = list.len();
    list.retain(|(at, _)| *at != id);
    list.len() != before
}

fn server() -> toolsmith::Server {
    let bookmarks = Bookmarks(Mutex::new(vec![
        (1, "Rust blog".into()),
        (2, "Docs".into()),
    ]));
    toolsmith_tests::server_of(module_path!()).state(bookmarks)
}

#[tokio::test]
async fn the_user_is_asked_the_question_the_function_makes_of_the_state() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let kept = asked.clone();
    let client = Client::connect(server())
        .await
        .unwrap()
        .on_confirm(move |confirmation| {
            kept.lock().unwrap().push(confirmation.message.clone());
            Answer::Accept
        });
    let deleted = client
        .call("delete_bookmark", json!({"id": 1}))
        .await
        .unwrap();
    assert_eq!(deleted.text(), "true");
    // Asked again: the state changed in between, and the question says so.
    client
        .call("delete_bookmark", json!({"id": 1}))
        .await
        .unwrap();
    assert_eq!(
        *asked.lock().unwrap(),
        [
            "Delete bookmark 'Rust blog'?",
            "Delete bookmark 1 (there is none)?"
        ]
    );
    // Arguments that cannot be taken ask nobody: the call is refused for them.
    let err = client
        .call("delete_bookmark", json!({"id": "one"}))
        .await
        .unwrap_err();
    assert!(err.message().contains("id"), "{err}");
    assert_eq!(asked.lock().unwrap().len(), 2);

    let registry = toolsmith_tests::declared_in(module_path!());
    let tool = registry.get("delete_bookmark").unwrap();
    assert!(
        tool.declares_confirm(),
        "the tool confirms, as with `confirm`"
    );
}

#[tokio::test]
async fn approvers_see_the_same_question() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    let server = server().approver(move |approval: &Approval| {
        kept.lock().unwrap().push(approval.question().to_owned());
        Decision::approve()
    });
    let client = Client::connect_unattended(server).await.unwrap();
    client
        .call("delete_bookmark", json!({"id": 2}))
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), ["Delete bookmark 'Docs'?"]);
}
