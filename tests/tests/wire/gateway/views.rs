//! Per-caller views through the gateway over Streamable HTTP with authorization: the
//! overrides' `only_for` lists, finds (search mode) and lets call a tool only for the callers
//! whose token it admits (a group, an email domain); to another caller it does not exist,
//! and its call never reaches the upstream.

use serde_json::{Value, json};
use toolsmith_tests::example_binary;
use toolsmith_tests::guarded::Guarded;

const OVERRIDES: &str = r#"
[tools.notes_delete_note]
only_for = { groups = ["admins"] }

[tools."notes_import_*"]
only_for = { email_domains = ["example.com"] }
"#;

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

fn names(response: &toolsmith_tests::http::Response) -> Vec<String> {
    let result = &response.messages()[0]["result"];
    let tools = result["tools"]
        .as_array()
        .or_else(|| result["structuredContent"]["tools"].as_array())
        .unwrap_or_else(|| panic!("{result}"));
    let mut names: Vec<String> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

async fn gateway(dir: &std::path::Path, extra: &[&str]) -> Guarded {
    let config = dir.join("gateway.json");
    let notes = example_binary("notes");
    let servers =
        json!({"mcpServers": {"notes": {"command": notes, "env": {"TOOLSMITH_LOG": "off"}}}});
    std::fs::write(&config, servers.to_string()).unwrap();
    let overrides = dir.join("overrides.toml");
    std::fs::write(&overrides, OVERRIDES).unwrap();
    let toolsmith = toolsmith_tests::built("toolsmith-cli", "--bin", "toolsmith");
    let before = [
        "gateway",
        "--config",
        config.to_str().unwrap(),
        "--overrides",
        overrides.to_str().unwrap(),
        "--",
    ];
    Guarded::start_after(toolsmith.to_str().unwrap(), &before, extra).await
}

#[tokio::test]
async fn each_caller_sees_and_calls_only_what_it_is_admitted_to() {
    let dir = std::env::temp_dir().join(format!("toolsmith-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let guarded = gateway(&dir, &[]).await;
    let scope = "tools:destructive";
    let admin = guarded.token_with(
        "ada",
        scope,
        json!({"groups": ["admins"], "email": "ada@example.com"}),
    );
    let other = guarded.token_with(
        "eve",
        scope,
        json!({"groups": ["staff"], "email": "eve@else.test"}),
    );
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});

    let all = names(&guarded.post_as(Some(&admin), &list).await);
    assert_eq!(all.len(), 7, "{all:?}");
    let seen = names(&guarded.post_as(Some(&other), &list).await);
    assert_eq!(
        seen,
        [
            "notes_create_note",
            "notes_get_note",
            "notes_search_notes",
            "notes_tag_chart"
        ]
    );

    // To the other caller the delete does not exist; the note stays.
    let delete = call(2, "notes_delete_note", json!({"note_id": 1}));
    let refused = guarded.post_as(Some(&other), &delete).await;
    let error = &refused.messages()[0]["error"];
    assert_eq!(error["code"], -32602, "{}", refused.body);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("notes_delete_note"),
        "{error}"
    );
    let get = call(3, "notes_get_note", json!({"note_id": 1}));
    let got = guarded.post_as(Some(&other), &get).await;
    assert_eq!(
        got.messages()[0]["result"]["structuredContent"]["id"],
        1,
        "{}",
        got.body
    );
    drop(guarded);

    // Search mode finds for each caller what it is admitted to.
    let guarded = gateway(&dir, &["--tool-search"]).await;
    let admin = guarded.token_with(
        "ada",
        scope,
        json!({"groups": ["admins"], "email": "ada@example.com"}),
    );
    let other = guarded.token_with(
        "eve",
        scope,
        json!({"groups": ["staff"], "email": "eve@else.test"}),
    );
    let search = call(4, "search_tools", json!({"query": "note"}));
    let found = names(&guarded.post_as(Some(&admin), &search).await);
    assert!(found.contains(&"notes_delete_note".to_owned()), "{found:?}");
    let found = names(&guarded.post_as(Some(&other), &search).await);
    assert!(
        !found
            .iter()
            .any(|n| n == "notes_delete_note" || n.starts_with("notes_import")),
        "{found:?}"
    );
    let through = call(
        5,
        "call_tool",
        json!({"name": "notes_delete_note", "arguments": {"note_id": 1}}),
    );
    let refused = guarded.post_as(Some(&other), &through).await;
    assert_eq!(
        refused.messages()[0]["error"]["code"],
        -32602,
        "{}",
        refused.body
    );
    let _ = std::fs::remove_dir_all(&dir);
}
