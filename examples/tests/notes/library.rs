//! The notes as resources and a prompt, through `toolsmith::testing`: the index and one
//! note read as JSON, a created note's link that resolves, the prompt with and without a
//! tag, completions of ids and tags, and the errors a client gets.

use serde::Deserialize;
use serde_json::json;
use toolsmith::testing::{CallError, Client, Complete};
use toolsmith_examples::store::{Note, Notes};

async fn client() -> Client {
    let server = toolsmith::Server::new().state(Notes::seeded());
    Client::connect(server)
        .await
        .expect("the notes server starts")
}

#[derive(Deserialize, Debug, PartialEq)]
struct Entry {
    id: u64,
    title: String,
}

#[tokio::test]
async fn the_index_and_the_template_are_listed_with_their_annotations() {
    let client = client().await;
    let resources = client.list_resources().await.unwrap();
    let index = resources.iter().find(|r| r.uri == "notes://index").unwrap();
    assert_eq!(index.title.as_deref(), Some("Note index"));
    assert_eq!(index.mime_type.as_deref(), Some("application/json"));
    let annotations = index.annotations.as_ref().unwrap();
    let audience = serde_json::to_value(&annotations.audience).unwrap();
    assert_eq!(audience, json!(["user", "assistant"]));
    assert_eq!(annotations.priority, Some(0.8));
    let templates = client.list_resource_templates().await.unwrap();
    let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(uris, ["notes://{note_id}"]);
}

#[tokio::test]
async fn the_index_and_a_note_read_as_json() {
    let client = client().await;
    let index = client.read_resource("notes://index").await.unwrap();
    assert_eq!(index.mime_type(), Some("application/json"));
    let entries: Vec<Entry> = index.data().unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(
        entries[1],
        Entry {
            id: 2,
            title: "Standup notes".into()
        }
    );
    let note: Note = client
        .read_resource("notes://2")
        .await
        .unwrap()
        .data()
        .unwrap();
    assert_eq!(note.tags, ["work"]);
}

#[tokio::test]
async fn a_missing_note_is_not_found_and_a_bad_id_is_invalid() {
    let client = client().await;
    let missing = client.read_resource("notes://99").await.unwrap_err();
    assert!(
        matches!(missing, CallError::Protocol { code: -32002, .. }),
        "{missing}"
    );
    let bad = client.read_resource("notes://two").await.unwrap_err();
    let CallError::Protocol {
        code: -32602,
        message,
    } = bad
    else {
        panic!("{bad}")
    };
    assert!(message.contains("note_id"), "{message}");
    let nothing = client.read_resource("other://1").await.unwrap_err();
    assert!(matches!(nothing, CallError::Protocol { code: -32002, .. }));
}

#[tokio::test]
async fn a_created_note_links_to_itself_and_the_link_resolves() {
    let client = client().await;
    let created = client
        .call("create_note", json!({"title": "Linked", "body": "here"}))
        .await
        .unwrap();
    let note: Note = created.data().unwrap();
    let link = created
        .content()
        .iter()
        .find_map(|block| match block {
            toolsmith::rmcp::model::ContentBlock::ResourceLink(link) => Some(link.clone()),
            _ => None,
        })
        .expect("a resource_link block");
    assert_eq!(link.uri, format!("notes://{}", note.id));
    let read: Note = client
        .read_resource(&link.uri)
        .await
        .unwrap()
        .data()
        .unwrap();
    assert_eq!(read, note);
    let tools = client.list_tools().await.unwrap();
    let create = tools.iter().find(|t| t.name == "create_note").unwrap();
    assert!(
        create.output_schema.is_some(),
        "Linked<Note> keeps Note's output schema"
    );
}

#[tokio::test]
async fn the_summary_prompt_quotes_the_notes_it_is_about() {
    let client = client().await;
    let prompts = client.list_prompts().await.unwrap();
    let summarize = prompts
        .iter()
        .find(|p| p.name == "summarize_notes")
        .unwrap();
    let args = summarize.arguments.as_ref().unwrap();
    assert_eq!(
        (args[0].name.as_str(), args[0].required),
        ("tag", Some(false))
    );
    assert_eq!(
        args[0].description.as_deref(),
        Some("Only the notes with this tag.")
    );
    let all = client
        .get_prompt("summarize_notes", json!({}))
        .await
        .unwrap();
    assert!(all.text().contains("Groceries") && all.text().contains("Book ideas"));
    let work = client
        .get_prompt("summarize_notes", json!({"tag": "work"}))
        .await
        .unwrap();
    assert!(work.text().contains("Standup notes"), "{}", work.text());
    assert!(!work.text().contains("Groceries"), "{}", work.text());
    let none = client
        .get_prompt("summarize_notes", json!({"tag": "nothing"}))
        .await
        .unwrap();
    assert!(none.text().contains("no notes"), "{}", none.text());
}

#[tokio::test]
async fn note_ids_and_tags_complete() {
    let client = client().await;
    let ids = client
        .complete(Complete::resource("notes://{note_id}", "note_id", ""))
        .await
        .unwrap();
    assert_eq!(ids.values, ["1", "2", "3"]);
    assert_eq!((ids.total, ids.has_more), (Some(3), false));
    let two = client
        .complete(Complete::resource("notes://{note_id}", "note_id", "2"))
        .await
        .unwrap();
    assert_eq!(two.values, ["2"]);
    let tags = client
        .complete(Complete::prompt("summarize_notes", "tag", "W"))
        .await
        .unwrap();
    assert_eq!(tags.values, ["work"]);
    let unknown = client
        .complete(Complete::prompt("summarize_notes", "nope", ""))
        .await
        .unwrap();
    assert!(
        unknown.values.is_empty(),
        "an argument without a completion has none"
    );
}
