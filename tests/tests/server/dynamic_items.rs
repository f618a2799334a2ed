//! Resources and prompts made by hand ([`toolsmith::resource::Resource`], [`toolsmith::prompt::Prompt`]): listed,
//! read and got through the same steps as a `#[resource]` and a `#[prompt]` (not found, a
//! wrong argument, an error the client reads), and added and removed while serving, with
//! `notifications/resources/list_changed` and `prompts/list_changed` on a session and on a
//! 2026-07-28 listen stream.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith::prompt::PromptDescription;
use toolsmith::resource::ResourceDescription;
use toolsmith::rmcp::model::{JsonObject, PromptArgument, ResourceContents};
use toolsmith::testing::{CallError, Client};
use toolsmith::{
    CallContext, Registry, Server, ToolError, prompt::Prompt, prompt::PromptFuture,
    prompt::PromptMessage, prompt::Role, resource::Resource, resource::ResourceFuture,
};

use super::dynamic::{listen, modern, post, read_until, serve_http};

/// A note by id, from a template: `notes://{id}`; ids above 9 do not exist, and 0 fails.
struct Note;

impl Resource for Note {
    fn describe(&self) -> ResourceDescription {
        ResourceDescription::new("notes://{id}", "note")
            .with_title("A note")
            .with_description("One note, by its id.")
            .with_mime_type("text/markdown")
            .with_audience([Role::User])
            .with_scopes(["notes:read"])
    }
    fn read(&self, uri: &str, variables: JsonObject, _: &CallContext) -> ResourceFuture {
        let uri = uri.to_owned();
        let id = variables["id"].as_str().unwrap_or_default().to_owned();
        Box::pin(async move {
            match id.parse::<u32>() {
                Ok(0) => Err(ToolError::new("note 0 is being rewritten: try again later")),
                Ok(n) if n <= 9 => Ok(Some(vec![
                    ResourceContents::text(format!("# Note {n}"), uri)
                        .with_mime_type("text/markdown"),
                ])),
                _ => Ok(None),
            }
        })
    }
}

/// The message of the day: one URI.
struct Motd;

impl Resource for Motd {
    fn describe(&self) -> ResourceDescription {
        ResourceDescription::new("motd://today", "motd")
    }
    fn read(&self, uri: &str, _: JsonObject, _: &CallContext) -> ResourceFuture {
        let contents = ResourceContents::text("Ship it.", uri);
        Box::pin(async move { Ok(Some(vec![contents])) })
    }
}

/// Asks for a review of a text, in a tone.
struct Review;

impl Prompt for Review {
    fn describe(&self) -> PromptDescription {
        PromptDescription::new("review")
            .with_description("Review a text.")
            .with_arguments([
                PromptArgument::new("text").with_required(true),
                PromptArgument::new("tone").with_description("friendly or strict"),
            ])
    }
    fn get(&self, arguments: JsonObject, _: &CallContext) -> PromptFuture {
        let text = arguments["text"].as_str().unwrap_or_default().to_owned();
        let tone = arguments
            .get("tone")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Box::pin(async move {
            if tone.as_deref() == Some("rude") {
                return Err(ToolError::new("tone is friendly or strict"));
            }
            Ok(vec![
                PromptMessage::user(format!(
                    "Review this, {}: {text}",
                    tone.as_deref().unwrap_or("friendly")
                )),
                PromptMessage::assistant("Reading it."),
            ])
        })
    }
}

fn items() -> Registry {
    Registry::new()
        .with_resource(Note)
        .unwrap()
        .with_resource(Motd)
        .unwrap()
        .with_prompt(Review)
        .unwrap()
}

/// Waits (bounded) until `seen` gives at least `count`.
async fn heard(what: &str, count: usize, seen: impl Fn() -> usize) {
    for _ in 0..200 {
        if seen() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("heard {} {what}, expected {count}", seen());
}

#[tokio::test]
async fn hand_written_resources_and_prompts_are_listed_read_and_got() {
    let client = Client::connect(Server::with_registry(items()))
        .await
        .unwrap();
    let resources = client.list_resources().await.unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0].uri, "motd://today");
    let templates = client.list_resource_templates().await.unwrap();
    assert_eq!(templates.len(), 1);
    let note = &templates[0];
    assert_eq!(note.uri_template, "notes://{id}");
    assert_eq!(note.title.as_deref(), Some("A note"));
    assert_eq!(note.mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(
        serde_json::to_value(&note.annotations).unwrap()["audience"],
        json!(["user"])
    );

    assert_eq!(
        client.read_resource("motd://today").await.unwrap().text(),
        "Ship it."
    );
    let read = client.read_resource("notes://7").await.unwrap();
    assert_eq!(read.text(), "# Note 7");
    assert_eq!(read.mime_type(), Some("text/markdown"));
    // Nothing at the URI: "resource not found", as for a `#[resource]` returning `None`.
    let absent = client.read_resource("notes://12").await.unwrap_err();
    assert!(
        matches!(absent, CallError::Protocol { code: -32002, .. }),
        "{absent:?}"
    );
    // Its own error: the client reads its message.
    let failed = client.read_resource("notes://0").await.unwrap_err();
    assert!(failed.message().contains("being rewritten"), "{failed:?}");

    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(prompts.len(), 1);
    let arguments = prompts[0].arguments.as_ref().unwrap();
    assert_eq!(arguments[0].name, "text");
    assert_eq!(arguments[0].required, Some(true));
    let got = client
        .get_prompt("review", json!({"text": "hello", "tone": "strict"}))
        .await
        .unwrap();
    assert!(
        got.text().contains("Review this, strict: hello"),
        "{}",
        got.text()
    );
    // A required argument missing: invalid params, before the prompt runs.
    let missing = client.get_prompt("review", json!({})).await.unwrap_err();
    assert!(
        matches!(&missing, CallError::Protocol { code: -32602, .. })
            && missing.message().contains("'text'"),
        "{missing:?}"
    );
    let refused = client
        .get_prompt("review", json!({"text": "x", "tone": "rude"}))
        .await
        .unwrap_err();
    assert!(
        refused.message().contains("friendly or strict"),
        "{refused:?}"
    );

    // What the registry says of them: made by hand, with their own scopes.
    let registry = items();
    let note = registry.resource_for("notes://3").unwrap();
    assert!(note.is_dynamic() && note.is_template());
    assert_eq!(note.header().scopes(), ["notes:read"]);
    assert!(registry.prompt("review").unwrap().is_dynamic());
}

#[tokio::test]
async fn resources_and_prompts_added_and_removed_while_serving_reach_a_session() {
    let server = Server::with_registry(Registry::new());
    let set = server.registry_handle();
    let client = Client::connect(server).await.unwrap();
    assert!(client.list_resources().await.unwrap().is_empty());

    set.add_resource(Motd).unwrap();
    heard("resources/list_changed", 1, || {
        client.resource_list_changes()
    })
    .await;
    assert_eq!(
        client.list_resources().await.unwrap()[0].uri,
        "motd://today"
    );
    assert_eq!(
        client.read_resource("motd://today").await.unwrap().text(),
        "Ship it."
    );
    // A URI taken is refused, and nothing is announced for it.
    let taken = set.add_resource(Motd).unwrap_err();
    assert!(
        taken.to_string().contains("two resources have the URI"),
        "{taken}"
    );

    set.add_prompt(Review).unwrap();
    heard("prompts/list_changed", 1, || client.prompt_list_changes()).await;
    assert_eq!(client.list_prompts().await.unwrap()[0].name, "review");

    assert!(set.remove_resource("motd://today"));
    heard("resources/list_changed", 2, || {
        client.resource_list_changes()
    })
    .await;
    let gone = client.read_resource("motd://today").await.unwrap_err();
    assert!(
        matches!(gone, CallError::Protocol { code: -32002, .. }),
        "{gone:?}"
    );
    assert!(set.remove_prompt("review"));
    heard("prompts/list_changed", 2, || client.prompt_list_changes()).await;
    assert!(client.list_prompts().await.unwrap().is_empty());
    assert!(!set.remove_prompt("review"), "removed already");

    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(client.resource_list_changes(), 2);
    assert_eq!(client.prompt_list_changes(), 2);
    assert_eq!(
        client.tool_list_changes(),
        0,
        "the tool list did not change"
    );
}

/// A 2026-07-28 POST of `body`, whose method names `name` (the `Mcp-Name` header): its answer.
async fn named(addr: &str, body: &Value, method: &str, name: &str) -> Value {
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
        ("Mcp-Name", name),
    ];
    let response = toolsmith_tests::http::post(addr, "/mcp", body, &headers).await;
    assert_eq!(response.status, 200, "{response:?}");
    response.messages().pop().expect("one answer")
}

#[tokio::test]
async fn over_http_a_listen_stream_hears_resource_and_prompt_list_changes() {
    let server = Server::with_registry(Registry::new());
    let set = server.registry_handle();
    let addr = serve_http(server).await;

    let notifications = json!({"resourcesListChanged": true, "promptsListChanged": true});
    let (mut stream, mut seen) = listen(&addr, notifications).await;
    assert!(seen.contains("\"promptsListChanged\":true"), "{seen}");
    assert!(seen.contains("\"resourcesListChanged\":true"), "{seen}");

    set.add_prompt(Review).unwrap();
    read_until(&mut stream, &mut seen, "notifications/prompts/list_changed").await;
    set.add_resource(Note).unwrap();
    read_until(
        &mut stream,
        &mut seen,
        "notifications/resources/list_changed",
    )
    .await;

    let body = modern(2, "resources/read", json!({"uri": "notes://4"}));
    let read = named(&addr, &body, "resources/read", "notes://4").await;
    assert_eq!(read["result"]["contents"][0]["text"], "# Note 4", "{read}");
    let list = post(&addr, &modern(5, "prompts/list", json!({})), "prompts/list").await;
    assert_eq!(list["result"]["prompts"][0]["name"], "review", "{list}");
    let body = modern(
        3,
        "prompts/get",
        json!({"name": "review", "arguments": {"text": "t"}}),
    );
    let got = named(&addr, &body, "prompts/get", "review").await;
    assert_eq!(
        got["result"]["messages"].as_array().map(Vec::len),
        Some(2),
        "{got}"
    );
    assert!(!seen.contains("notifications/tools/list_changed"), "{seen}");
}
