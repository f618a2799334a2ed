//! Search mode over Streamable HTTP with authorization (`serve --tool-search`): every caller
//! lists the two tools, `search_tools` finds only what the caller's token may call, and a
//! `call_tool` call of a tool the token may not call is refused at the edge (403, the
//! challenge naming that tool's scope); the tool does not run.

use serde_json::{Value, json};
use toolsmith_tests::example_binary;
use toolsmith_tests::guarded::Guarded;

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

fn found(response: &toolsmith_tests::http::Response) -> Vec<String> {
    let result = &response.messages()[0]["result"];
    let mut names: Vec<String> = result["structuredContent"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_read_token_finds_and_calls_only_reading_tools() {
    let notes = example_binary("notes");
    let guarded = Guarded::start(notes.to_str().unwrap(), &["--tool-search"]).await;
    let read = guarded.token("reader", "tools:read");
    let admin = guarded.token("admin", "tools:destructive");

    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    for token in [&read, &admin] {
        let listed = guarded.post_as(Some(token), &list).await;
        let tools = listed.messages()[0]["result"]["tools"].clone();
        let names: Vec<&str> = tools
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["search_tools", "call_tool"], "{tools}");
    }

    let search = call(2, "search_tools", json!({}));
    let reading = found(&guarded.post_as(Some(&read), &search).await);
    assert_eq!(reading, ["get_note", "search_notes", "tag_chart"]);
    let all = found(&guarded.post_as(Some(&admin), &search).await);
    assert!(
        all.contains(&"delete_note".to_owned()) && all.len() == 7,
        "{all:?}"
    );

    let delete = call(
        3,
        "call_tool",
        json!({"name": "delete_note", "arguments": {"note_id": 1}}),
    );
    // Refused at the edge for the scope of the tool it names, with the challenge a client
    // steps up by.
    let refused = guarded.post_as(Some(&read), &delete).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let challenge = refused.header("www-authenticate").unwrap().to_owned();
    assert!(
        challenge.contains("scope=\"tools:destructive\""),
        "{challenge}"
    );
    assert!(
        challenge.contains("calling tool delete_note through call_tool"),
        "{challenge}"
    );
    let error = &refused.messages()[0]["error"];
    assert_eq!(error["code"], -32003, "{}", refused.body);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("tools:destructive"),
        "{error}"
    );
    // Arguments whose `name` is no string leave the edge's check as it is, on the way that
    // reads the params apart from the fast path's (a `Last-Event-ID` takes a request there).
    let odd = call(5, "delete_note", json!({"note_id": 1, "name": 5}));
    let bearer = format!("Bearer {read}");
    let headers = [
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Authorization", bearer.as_str()),
        ("Last-Event-ID", "0"),
    ];
    let refused = guarded.server.post(&odd, &headers).await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    let get = call(
        4,
        "call_tool",
        json!({"name": "get_note", "arguments": {"note_id": 1}}),
    );
    let got = guarded.post_as(Some(&read), &get).await;
    let result = &got.messages()[0]["result"];
    assert_eq!(
        result["structuredContent"]["id"], 1,
        "the note is still there: {result}"
    );
}

#[tokio::test]
async fn the_metrics_count_the_tool_called_by_its_name() {
    let notes = example_binary("notes");
    let server =
        toolsmith_tests::http::HttpServer::start(notes.to_str().unwrap(), &["--tool-search"]).await;
    let get = call(
        1,
        "call_tool",
        json!({"name": "get_note", "arguments": {"note_id": 1}}),
    );
    let version = ("MCP-Protocol-Version", "2025-11-25");
    let answered = server.post(&get, &[version]).await;
    assert_eq!(
        answered.messages()[0]["result"]["structuredContent"]["id"],
        1,
        "{}",
        answered.body
    );
    let scraped = toolsmith_tests::http::request(&server.addr, "GET", "/metrics", &[], "").await;
    assert!(
        scraped.body.contains(
            r#"toolsmith_tool_calls_total{tool="get_note",outcome="ok",category="notes"} 1"#
        ),
        "{}",
        scraped.body
    );
    assert!(
        !scraped.body.contains(r#"tool="call_tool""#),
        "{}",
        scraped.body
    );
}
