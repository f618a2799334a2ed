//! Connects to the notes tools in-process, like the tutorial's client: prints the
//! annotation matrix, then searches, gets a note and a missing one, creates a note, deletes
//! one twice, and asks for the tag chart (text and a PNG image, then the image alone).
//! `cargo run -p toolsmith-examples --example notes_demo`

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};
use toolsmith_examples::store::Notes;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_end);
    let server = tokio::spawn(
        toolsmith::Server::new()
            .state(Notes::seeded())
            .serve_on(read, write),
    );
    let client = ().serve(client_end).await?;

    let tools = client.list_all_tools().await?;
    println!(
        "{:<14} {:<14} {:<10} {:<12} {:<11} {:<10}",
        "tool", "title", "read-only", "destructive", "idempotent", "open-world"
    );
    for tool in &tools {
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

    let call = |name: &'static str, args: Value| {
        let client = &client;
        async move {
            let params = CallToolRequestParams::new(name)
                .with_arguments(args.as_object().cloned().unwrap_or_default());
            client.call_tool(params).await
        }
    };
    println!();
    show(
        "search_notes parser",
        call("search_notes", json!({"query": "parser"})).await?,
    );
    show("get_note 1", call("get_note", json!({"note_id": 1})).await?);
    show(
        "get_note 99",
        call("get_note", json!({"note_id": 99})).await?,
    );
    show(
        "create_note",
        call(
            "create_note",
            json!({"title": "Demo", "body": "made by the demo"}),
        )
        .await?,
    );
    show(
        "delete_note 1",
        call("delete_note", json!({"note_id": 1})).await?,
    );
    show(
        "delete_note 1 again",
        call("delete_note", json!({"note_id": 1})).await?,
    );
    show("tag_chart", call("tag_chart", json!({})).await?);
    show(
        "tag_chart no legend",
        call("tag_chart", json!({"legend": false})).await?,
    );

    client.cancel().await?;
    server.await??;
    Ok(())
}

/// One line per result: its text blocks (lines joined), and what its other blocks are.
fn show(what: &str, result: CallToolResult) {
    let text = result
        .content
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
        .join(" ");
    let marker = if result.is_error == Some(true) {
        "error"
    } else {
        "ok"
    };
    println!("{what:<22} {marker:<5} {text}");
}
