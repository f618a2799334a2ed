//! A server is a value: tools made by hand ([`toolsmith::Tool`]) in a registry of the
//! program's own, served over stdio and HTTP through the same pipeline as a `#[tool]` (the
//! policy, the scope its hints imply, confirmation), tools added and removed while serving
//! (with `notifications/tools/list_changed`, on a session and on a 2026-07-28 listen
//! stream), and two servers with two tool sets in one process.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolsmith::ToolDescription;
use toolsmith::rmcp::model::JsonObject;
use toolsmith::testing::{CallError, Client};
use toolsmith::{
    CallContext, Hints, Registry, Server, Tool, ToolError, context::Caller, server::Confirm,
    server::Policy, tool::ScopeNames, tool::ToolFuture, tool::ToolOutput,
};

fn object(value: Value) -> JsonObject {
    value.as_object().cloned().unwrap()
}

/// Counts the words of a text: read-only, closed-world.
struct WordCount;

impl Tool for WordCount {
    fn describe(&self) -> ToolDescription {
        let schema = object(json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        }));
        let hints = Hints {
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
        };
        ToolDescription::new("word_count", "Count the words of a text.", schema, hints)
            .with_title("Count words")
    }
    fn call(&self, arguments: JsonObject, context: &CallContext) -> ToolFuture {
        let caller = context.extract::<Caller>();
        Box::pin(async move {
            caller?;
            let Some(text) = arguments.get("text").and_then(Value::as_str) else {
                return Err(ToolError::new("give `text`, a string"));
            };
            Ok(ToolOutput::new().text(text.split_whitespace().count().to_string()))
        })
    }
}

/// Empties a store of notes: destructive, and it says so.
struct Wipe(Arc<AtomicUsize>);

impl Tool for Wipe {
    fn describe(&self) -> ToolDescription {
        let schema = object(json!({"type": "object", "properties": {}}));
        let hints = Hints {
            read_only: false,
            destructive: true,
            idempotent: true,
            open_world: false,
        };
        ToolDescription::new("wipe_notes", "Delete every note.", schema, hints)
            .with_confirm_message("Delete every note?")
    }
    fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
        let notes = self.0.clone();
        Box::pin(async move {
            let gone = notes.swap(0, Ordering::SeqCst);
            Ok(ToolOutput::new().text(format!("deleted {gone} notes")))
        })
    }
}

fn both(notes: &Arc<AtomicUsize>) -> Registry {
    Registry::new()
        .with_tool(WordCount)
        .unwrap()
        .with_tool(Wipe(notes.clone()))
        .unwrap()
}

/// Waits (bounded) until `client` heard `count` list changes.
async fn heard(client: &Client, count: usize) {
    for _ in 0..200 {
        if client.tool_list_changes() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!(
        "heard {} tools/list_changed, expected {count}",
        client.tool_list_changes()
    );
}

#[tokio::test]
async fn a_hand_written_tool_is_listed_and_called_like_a_tool_macro() {
    let notes = Arc::new(AtomicUsize::new(3));
    let client = Client::connect(Server::with_registry(both(&notes)))
        .await
        .unwrap();
    let tools = client.tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["wipe_notes", "word_count"], "sorted by name");
    let count = &tools[1];
    assert_eq!(count.title.as_deref(), Some("Count words"));
    assert!(count.hints.read_only && !count.hints.open_world);
    assert_eq!(count.scopes, ["tools:read"]);
    assert_eq!(tools[0].scopes, ["tools:destructive"]);

    let counted = client
        .call("word_count", json!({"text": "one two three"}))
        .await
        .unwrap();
    assert_eq!(counted.text(), "3");
    // A wrong argument: refused against the input schema before the tool runs, as the
    // model reads it.
    let err = client
        .call("word_count", json!({"text": 7}))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Invalid arguments for tool 'word_count': argument `text` is invalid (expected a string): got 7"
    );
}

#[tokio::test]
async fn the_policy_and_confirmation_govern_a_hand_written_tool_by_its_hints() {
    // Read-only serving: the destructive tool is neither offered nor run.
    let notes = Arc::new(AtomicUsize::new(3));
    let server = Server::with_registry(both(&notes)).policy(Policy::new().read_only(true));
    let client = Client::connect(server).await.unwrap();
    let names: Vec<String> = client
        .tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["word_count"]);
    let refused = client.call("wipe_notes", json!({})).await.unwrap_err();
    assert!(refused.message().contains("read-only"), "{refused:?}");
    assert_eq!(notes.load(Ordering::SeqCst), 3);

    // Confirmation of destructive tools: asked with the tool's own question, then run.
    let server = Server::with_registry(both(&notes)).confirm(Confirm::Destructive);
    let accepting = toolsmith_tests::connect_accepting(server).await;
    let done = toolsmith_tests::call(&accepting, "wipe_notes", json!({}))
        .await
        .unwrap();
    assert_eq!(toolsmith_tests::text(&done), "deleted 3 notes");
    assert_eq!(
        *accepting.service().asked.lock().unwrap(),
        ["Delete every note?"]
    );
    // A client that cannot be asked: refused, nothing deleted.
    notes.store(5, Ordering::SeqCst);
    let server = Server::with_registry(both(&notes)).confirm(Confirm::Destructive);
    let plain = toolsmith_tests::connect(server).await;
    let refused = toolsmith_tests::call(&plain, "wipe_notes", json!({}))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(notes.load(Ordering::SeqCst), 5);
    // The scope a token needs is its hints' (with authorization).
    let registry = both(&notes);
    let names = ScopeNames::default();
    assert!(!names.permits(registry.get("wipe_notes").unwrap(), &["tools:write"]));
    assert!(names.permits(registry.get("word_count").unwrap(), &["tools:read"]));
}

#[tokio::test]
async fn tools_added_and_removed_while_serving_reach_a_session() {
    let server = Server::with_registry(Registry::new());
    let tools = server.registry_handle();
    let client = Client::connect(server).await.unwrap();
    assert!(client.tools().await.unwrap().is_empty());

    tools.add_tool(WordCount).unwrap();
    heard(&client, 1).await;
    let listed = client.tools().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "word_count");
    let counted = client
        .call("word_count", json!({"text": "a b"}))
        .await
        .unwrap();
    assert_eq!(counted.text(), "2");

    // A name taken is refused, and changes nothing (no notification either).
    assert!(tools.add_tool(WordCount).is_err());
    assert!(tools.remove_tool("word_count"));
    heard(&client, 2).await;
    assert!(client.tools().await.unwrap().is_empty());
    let gone = client
        .call("word_count", json!({"text": "a"}))
        .await
        .unwrap_err();
    assert!(
        matches!(gone, CallError::Protocol { code: -32602, .. }),
        "{gone:?}"
    );
    assert!(!tools.remove_tool("word_count"), "removed already");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        client.tool_list_changes(),
        2,
        "a change that changed nothing is not told"
    );
}

#[tokio::test]
async fn two_servers_in_one_process_serve_their_own_tools() {
    let notes = Arc::new(AtomicUsize::new(1));
    let words = Client::connect(Server::with_registry(
        Registry::new().with_tool(WordCount).unwrap(),
    ))
    .await
    .unwrap();
    let wipes = Client::connect(Server::with_registry(
        Registry::new().with_tool(Wipe(notes.clone())).unwrap(),
    ))
    .await
    .unwrap();
    let names = |tools: Vec<toolsmith::testing::ListedTool>| -> Vec<String> {
        tools.into_iter().map(|t| t.name).collect()
    };
    assert_eq!(names(words.tools().await.unwrap()), ["word_count"]);
    assert_eq!(names(wipes.tools().await.unwrap()), ["wipe_notes"]);
    assert!(words.call("wipe_notes", json!({})).await.is_err());
    assert_eq!(
        notes.load(Ordering::SeqCst),
        1,
        "not run by the other server"
    );
    assert_eq!(
        wipes.call("wipe_notes", json!({})).await.unwrap().text(),
        "deleted 1 notes"
    );
}

/// Reads `stream` into `seen` until it holds `what` (at most 10 s).
pub(crate) async fn read_until(stream: &mut tokio::net::TcpStream, seen: &mut String, what: &str) {
    let mut buf = vec![0u8; 4096];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !seen.contains(what) {
        let n = tokio::time::timeout_at(deadline, stream.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("no {what} within 10 s: {seen}"))
            .unwrap();
        assert!(n > 0, "the stream ended before {what}: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
}

/// A 2026-07-28 `subscriptions/listen` stream asking for `notifications`, once acknowledged:
/// the stream, and what it sent so far.
pub(crate) async fn listen(addr: &str, notifications: Value) -> (tokio::net::TcpStream, String) {
    let listen = modern(
        1,
        "subscriptions/listen",
        json!({ "notifications": notifications }),
    )
    .to_string();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{listen}",
        listen.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut seen = String::new();
    let acknowledged = "notifications/subscriptions/acknowledged";
    read_until(&mut stream, &mut seen, acknowledged).await;
    (stream, seen)
}

/// A `serve_http` of `server` on a free loopback port; its address.
pub(crate) async fn serve_http(server: Server) -> String {
    let port = toolsmith_tests::free_port();
    let addr = format!("127.0.0.1:{port}");
    tokio::spawn(server.serve_http(addr.clone()));
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(&addr).await.is_ok() {
            return addr;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server did not listen on {addr}");
}

const MODERN: &str = "2026-07-28";

pub(crate) fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "dynamic-test", "version": "0"},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

pub(crate) async fn post(addr: &str, body: &Value, method: &str) -> Value {
    let response = toolsmith_tests::http::post(
        addr,
        "/mcp",
        body,
        &[("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)],
    )
    .await;
    assert_eq!(response.status, 200, "{response:?}");
    response.messages().pop().expect("one answer")
}

#[tokio::test]
async fn over_http_a_hand_written_tool_is_called_and_a_listen_stream_hears_changes() {
    let server = Server::with_registry(Registry::new().with_tool(WordCount).unwrap());
    let tools = server.registry_handle();
    let addr = serve_http(server).await;

    let list = post(&addr, &modern(1, "tools/list", json!({})), "tools/list").await;
    assert_eq!(list["result"]["tools"][0]["name"], "word_count", "{list}");
    assert_eq!(
        list["result"]["tools"][0]["annotations"]["readOnlyHint"],
        true
    );
    let body = modern(
        2,
        "tools/call",
        json!({"name": "word_count", "arguments": {"text": "x y z w"}}),
    );
    let called = toolsmith_tests::http::post(
        &addr,
        "/mcp",
        &body,
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "word_count"),
        ],
    )
    .await;
    let answer = called.messages().pop().unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "4", "{answer}");

    // A listen stream asking for tool list changes hears one when a tool is added.
    let (mut stream, mut seen) = listen(&addr, json!({"toolsListChanged": true})).await;
    assert!(seen.contains("\"toolsListChanged\":true"), "{seen}");
    tools.add_tool(Wipe(Arc::default())).unwrap();
    read_until(&mut stream, &mut seen, "notifications/tools/list_changed").await;
    let list = post(&addr, &modern(4, "tools/list", json!({})), "tools/list").await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["wipe_notes", "word_count"]);
}

#[test]
fn registries_merge_sorted_refuse_a_shared_name_and_take_a_prefix() {
    let notes = Arc::new(AtomicUsize::new(0));
    let words = Registry::new().with_tool(WordCount).unwrap();
    let wipes = Registry::new().with_tool(Wipe(notes.clone())).unwrap();
    let both = words.clone().merge(wipes).unwrap();
    let names: Vec<&str> = both.tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["wipe_notes", "word_count"]);
    assert!(both.get("word_count").is_some() && both.get("wipe_notes").is_some());
    let Err(err) = both.clone().merge(words) else {
        panic!("a name in both registries is refused");
    };
    assert!(
        err.to_string().contains("two tools are named 'word_count'"),
        "{err}"
    );
    let prefixed = both.prefixed("notes_").unwrap();
    let names: Vec<&str> = prefixed.tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["notes_wipe_notes", "notes_word_count"]);
    let renamed = prefixed.get("notes_word_count").unwrap();
    assert_eq!(renamed.mcp_tool().name, "notes_word_count");
    assert!(renamed.hints().read_only, "the rest is the tool's own");
    assert!(
        Registry::new()
            .with_tool(WordCount)
            .unwrap()
            .prefixed("no spaces ")
            .is_err()
    );
}
