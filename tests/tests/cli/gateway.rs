//! `toolsmith gateway --config FILE [SERVER ARGS]`: the notes example as an upstream, named in
//! Claude Desktop's JSON and in TOML, its tools shown and called through the command line any
//! toolsmith server has, with the gateway's policy on them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use toolsmith_tests::{built, example_binary};

fn toolsmith() -> PathBuf {
    built("toolsmith-cli", "--bin", "toolsmith")
}

/// A scratch file of this test process holding `text`.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolsmith-gateway-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn gateway(config: &Path, args: &[&str]) -> Output {
    Command::new(toolsmith())
        .arg("gateway")
        .arg("--config")
        .arg(config)
        .args(args)
        .env("TOOLSMITH_LOG", "off")
        .output()
        .expect("toolsmith runs")
}

fn out(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn err(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_claude_desktop_config_is_served_with_the_gateways_policy() {
    let notes = example_binary("notes");
    let config = serde_json::json!({"mcpServers": {"notes": {
        "command": notes, "env": {"TOOLSMITH_LOG": "off"}
    }}});
    let config = file("claude_desktop_config.json", &config.to_string());
    let listed = gateway(&config, &["tools"]);
    assert!(listed.status.success(), "{}", err(&listed));
    let table = out(&listed);
    assert!(table.contains("notes_delete_note"), "{table}");
    let delete = table
        .lines()
        .find(|l| l.starts_with("notes_delete_note"))
        .unwrap();
    assert!(delete.contains("tools:destructive"), "{delete}");

    // The notes example states every hint: --strict-hints leaves nothing out.
    let strict = out(&gateway(&config, &["--strict-hints", "tools"]));
    assert_eq!(strict, table, "--strict-hints changed the list");

    // The policy of the command line: read-only shows only what only reads.
    let read_only = out(&gateway(&config, &["tools", "--read-only"]));
    assert!(read_only.contains("notes_search_notes"), "{read_only}");
    assert!(!read_only.contains("notes_create_note"), "{read_only}");
    let called = gateway(
        &config,
        &[
            "call",
            "notes_search_notes",
            "--args",
            r#"{"query": "standup"}"#,
        ],
    );
    assert!(called.status.success(), "{}", err(&called));
    assert!(out(&called).contains("Standup notes"), "{}", out(&called));
}

#[test]
fn a_toml_config_takes_a_prefix_and_a_wrong_one_is_refused() {
    let notes = example_binary("notes");
    let toml = format!(
        "[servers.notes]\ncommand = {:?}\nprefix = \"n_\"\nenv = {{ TOOLSMITH_LOG = \"off\" }}\n",
        notes.display().to_string()
    );
    let listed = gateway(&file("gateway.toml", &toml), &["tools"]);
    assert!(listed.status.success(), "{}", err(&listed));
    assert!(out(&listed).contains("n_get_note"), "{}", out(&listed));

    let remote = file(
        "remote.json",
        r#"{"mcpServers": {"r": {"type": "sse", "url": "https://a.example/sse"}}}"#,
    );
    let refused = gateway(&remote, &["tools"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(err(&refused).contains("old HTTP+SSE"), "{}", err(&refused));

    let ghost = file(
        "ghost.json",
        r#"{"mcpServers": {"ghost": {"command": "/no/such/server"}}}"#,
    );
    let failed = gateway(&ghost, &["tools"]);
    assert_eq!(failed.status.code(), Some(1));
    assert!(
        err(&failed).contains("cannot start upstream 'ghost'"),
        "{}",
        err(&failed)
    );
}
