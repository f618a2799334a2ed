//! Connects to the notes tools in-process with `toolsmith::testing`, like the tutorial's
//! client: prints the annotation matrix, then searches, gets a note and a missing one,
//! creates a note, deletes one twice (`delete_note` asks the user first: the demo declines
//! once, then accepts), and asks for the tag chart (text and a PNG image, then the image
//! alone).
//! `cargo run -p toolsmith-examples --example notes_demo`

use serde_json::{Value, json};
use toolsmith::testing::{Answer, CallError, CallOutcome, Client};
use toolsmith_examples::store::Notes;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let client = Client::connect(toolsmith::Server::new().state(Notes::seeded())).await?;

    println!(
        "{:<14} {:<14} {:<10} {:<12} {:<11} {:<10}",
        "tool", "title", "read-only", "destructive", "idempotent", "open-world"
    );
    for tool in client.list_tools().await? {
        let a = tool.annotations.clone().unwrap_or_default();
        let flag = |b: Option<bool>| b.map_or("-".to_owned(), |b| b.to_string());
        println!(
            "{:<14} {:<14} {:<10} {:<12} {:<11} {:<10}",
            tool.name,
            tool.title.as_deref().unwrap_or("-"),
            flag(a.read_only_hint),
            flag(a.destructive_hint),
            flag(a.idempotent_hint),
            flag(a.open_world_hint),
        );
    }

    println!();
    let calls: [(&str, &str, Value); 4] = [
        (
            "search_notes parser",
            "search_notes",
            json!({"query": "parser"}),
        ),
        ("get_note 1", "get_note", json!({"note_id": 1})),
        ("get_note 99", "get_note", json!({"note_id": 99})),
        (
            "create_note",
            "create_note",
            json!({"title": "Demo", "body": "made by the demo"}),
        ),
    ];
    for (what, tool, args) in calls {
        show(what, client.call(tool, args).await);
    }

    // delete_note asks the user first: this user says no, then yes.
    let no = client.on_confirm(|question| {
        println!(
            "{:<22} {:<5} {}",
            "  the user is asked", "no", question.message
        );
        Answer::Decline
    });
    show(
        "delete_note 1",
        no.call("delete_note", json!({"note_id": 1})).await,
    );
    let yes = no.on_confirm(|question| {
        println!(
            "{:<22} {:<5} {}",
            "  the user is asked", "yes", question.message
        );
        Answer::Accept
    });
    let calls: [(&str, &str, Value); 4] = [
        ("delete_note 1", "delete_note", json!({"note_id": 1})),
        ("delete_note 1 again", "delete_note", json!({"note_id": 1})),
        ("tag_chart", "tag_chart", json!({})),
        ("tag_chart no legend", "tag_chart", json!({"legend": false})),
    ];
    for (what, tool, args) in calls {
        show(what, yes.call(tool, args).await);
    }
    Ok(())
}

/// One line per call: its text blocks (lines joined), and what its other blocks are.
fn show(what: &str, outcome: Result<CallOutcome, CallError>) {
    let (marker, text) = match outcome {
        Ok(outcome) => ("ok", describe(&outcome)),
        Err(err) => ("error", err.message()),
    };
    println!("{what:<22} {marker:<5} {text}");
}

fn describe(outcome: &CallOutcome) -> String {
    outcome
        .content()
        .iter()
        .map(|block| match (block.as_text(), block.as_image()) {
            (Some(text), _) => text.text.replace('\n', ", "),
            (_, Some(image)) => format!(
                "[{} image, {} bytes of base64]",
                image.mime_type,
                image.data.len()
            ),
            _ => "[other content]".to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}
