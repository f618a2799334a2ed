//! The tutorial's seven contract tests, in Rust, with `toolsmith::testing`.

use serde::Deserialize;
use serde_json::json;
use toolsmith::testing::{Answer, CallError, Client};
use toolsmith::{State, error::ErrorKind, tool};
use toolsmith_examples::store::{Note, Notes};

/// Fails with a secret in its error (test 6).
#[tool(read_only, closed_world)]
fn boom() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("database password is hunter2"))
}

/// Counts its runs, to show that a call with a missing argument never runs (test 7).
#[tool(destructive = false, closed_world)]
fn tally(runs: State<std::sync::atomic::AtomicU64>, label: String) -> u64 {
    let _ = label;
    runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
}

#[derive(Deserialize, Debug, PartialEq)]
struct Deleted {
    note_id: u64,
    deleted: bool,
}

async fn client() -> Client {
    // The examples' tools and this module's (not the other test modules' of this binary).
    let registry = toolsmith::Registry::from_module("toolsmith_examples")
        .and_then(|examples| examples.merge(toolsmith::Registry::from_module(module_path!())?))
        .expect("the tools' names are distinct");
    let server = toolsmith::Server::with_registry(registry)
        .state(Notes::seeded())
        .state(std::sync::atomic::AtomicU64::new(0));
    Client::connect(server)
        .await
        .expect("the notes server starts")
}

#[tokio::test]
async fn the_annotations_are_advertised() {
    let tools = client().await.list_tools().await.unwrap();
    let hints = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let a = tool.annotations.clone().unwrap();
        (
            a.read_only_hint,
            a.destructive_hint,
            a.idempotent_hint,
            a.open_world_hint,
        )
    };
    let (yes, no) = (Some(true), Some(false));
    assert_eq!(hints("search_notes"), (yes, no, yes, no));
    assert_eq!(hints("get_note"), (yes, no, yes, no));
    assert_eq!(hints("create_note"), (no, no, no, no));
    assert_eq!(hints("delete_note"), (no, yes, yes, no));
}

#[tokio::test]
async fn a_search_finds_a_note_by_its_body() {
    let found = client()
        .await
        .call("search_notes", json!({"query": "lighthouse"}))
        .await
        .unwrap();
    let notes: Vec<Note> = found.data().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].title, "Book ideas");
}

#[tokio::test]
async fn a_missing_note_is_an_error_result_with_an_exact_message() {
    let err = client()
        .await
        .call("get_note", json!({"note_id": 99}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            CallError::Tool {
                kind: ErrorKind::Tool,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.message(), "No note with id 99.");
}

#[tokio::test]
async fn create_note_is_not_idempotent() {
    let client = client().await;
    let args = json!({"title": "Twice", "body": "same"});
    let first: Note = client
        .call("create_note", args.clone())
        .await
        .unwrap()
        .data()
        .unwrap();
    let second: Note = client
        .call("create_note", args)
        .await
        .unwrap()
        .data()
        .unwrap();
    assert_ne!(first.id, second.id);
}

#[tokio::test]
async fn delete_note_is_idempotent() {
    let client = client().await.on_confirm(|_| Answer::Accept);
    let first: Deleted = client
        .call("delete_note", json!({"note_id": 1}))
        .await
        .unwrap()
        .data()
        .unwrap();
    assert_eq!(
        first,
        Deleted {
            note_id: 1,
            deleted: true
        }
    );
    let again = client
        .call("delete_note", json!({"note_id": 1}))
        .await
        .unwrap();
    assert!(!again.is_error());
    assert_eq!(
        again.data::<Deleted>().unwrap(),
        Deleted {
            note_id: 1,
            deleted: false
        }
    );
}

#[tokio::test]
async fn delete_note_asks_the_user_first_and_a_no_keeps_the_note() {
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = client().await.on_confirm(move |question| {
        seen.lock().unwrap().push(question.message.clone());
        Answer::Decline
    });
    let err = client
        .call("delete_note", json!({"note_id": 2}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            CallError::Tool {
                kind: ErrorKind::Refused,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.message().contains("declined"), "{err}");
    assert_eq!(*asked.lock().unwrap(), ["Delete note 2?"]);
    let kept: Note = client
        .call("get_note", json!({"note_id": 2}))
        .await
        .unwrap()
        .data()
        .unwrap();
    assert_eq!(kept.id, 2, "the note is still there");
}

#[tokio::test]
async fn an_unexpected_error_is_masked_and_its_secret_never_leaks() {
    let err = client().await.call("boom", json!({})).await.unwrap_err();
    assert!(
        matches!(
            err,
            CallError::Tool {
                kind: ErrorKind::Failed,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.message(), "Error calling tool 'boom'");
    assert!(!format!("{err:?}").contains("hunter2"));
}

#[tokio::test]
async fn a_missing_argument_is_named_and_the_tool_does_not_run() {
    let client = client().await;
    let err = client.call("tally", json!({})).await.unwrap_err();
    assert!(
        matches!(
            err,
            CallError::Tool {
                kind: ErrorKind::InvalidArguments,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.message().contains("`label`"), "{err}");
    let first_run = client.call("tally", json!({"label": "x"})).await.unwrap();
    assert_eq!(
        first_run.data::<u64>().unwrap(),
        1,
        "the rejected call never ran"
    );
}
