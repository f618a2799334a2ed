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

/// The notes example as the only upstream, in Claude Desktop's JSON.
fn notes_config(name: &str) -> PathBuf {
    let notes = example_binary("notes");
    let config = serde_json::json!({"mcpServers": {"notes": {
        "command": notes, "env": {"TOOLSMITH_LOG": "off"}
    }}});
    file(name, &config.to_string())
}

/// `tools --json`'s row of `tool`.
fn row(output: &Output, tool: &str) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out(output))
        .unwrap_or_else(|_| panic!("tools --json: {}{}", out(output), err(output)));
    rows.into_iter()
        .find(|row| row["name"] == tool)
        .unwrap_or_else(|| panic!("{tool} is not listed: {}", out(output)))
}

#[test]
fn an_overrides_file_corrects_hints_titles_tags_scopes_and_confirmation() {
    let config = notes_config("overridden.json");
    let overrides = file(
        "overrides.toml",
        r#"
[tools."notes_*"]
tags = ["upstream"]

[tools.notes_create_note]
destructive = true
title = "New note"
scopes = ["notes:write"]
confirm = "Create a note titled {title}?"
"#,
    );
    let overrides = overrides.to_str().unwrap();
    let before = gateway(&config, &["tools", "--json"]);
    assert_eq!(row(&before, "notes_create_note")["destructive"], false);
    let listed = gateway(&config, &["--overrides", overrides, "tools", "--json"]);
    let create = row(&listed, "notes_create_note");
    assert_eq!(create["destructive"], true, "{create}");
    assert_eq!(create["confirm"], true, "{create}");
    assert_eq!(create["title"], "New note", "{create}");
    assert_eq!(create["scopes"], serde_json::json!(["notes:write"]));
    assert_eq!(create["tags"], serde_json::json!(["upstream"]));
    // The glob's tags reach every tool; the rest of a tool's word stays the upstream's.
    let get = row(&listed, "notes_get_note");
    assert_eq!(get["tags"], serde_json::json!(["upstream"]));
    assert_eq!(
        (&get["readOnly"], &get["title"]),
        (&true.into(), &"Get note".into())
    );

    // The question can name only the tool's arguments: the error names the one it cannot.
    let wrong = file(
        "wrong.toml",
        "[tools.notes_create_note]\nconfirm = \"Create {name}?\"\n",
    );
    let refused = gateway(&config, &["--overrides", wrong.to_str().unwrap(), "tools"]);
    assert_eq!(refused.status.code(), Some(1), "{}", err(&refused));
    assert!(
        err(&refused)
            .contains("names {name}, which is not one of its arguments (title, body, tags)"),
        "{}",
        err(&refused)
    );
    let contradiction = file(
        "contradiction.toml",
        "[tools.notes_get_note]\nread_only = true\ndestructive = true\n",
    );
    let refused = gateway(
        &config,
        &["--overrides", contradiction.to_str().unwrap(), "tools"],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", err(&refused));
    assert!(
        err(&refused).contains("cannot be destructive"),
        "{}",
        err(&refused)
    );
}

/// The CONFIRM cell of `tool` in the table `gateway tools` prints with `args`.
fn confirm_cell(config: &Path, args: &[&str], tool: &str) -> String {
    let listed = gateway(config, args);
    assert!(listed.status.success(), "{}", err(&listed));
    let table = out(&listed);
    assert!(
        table.lines().next().unwrap_or_default().contains("CONFIRM"),
        "{table}"
    );
    let line = table
        .lines()
        .find(|line| line.starts_with(tool))
        .unwrap_or_else(|| panic!("{tool} is not listed: {table}"));
    let cells: Vec<&str> = line
        .split("  ")
        .map(str::trim)
        .filter(|cell| !cell.is_empty())
        .collect();
    cells[6].to_owned()
}

#[test]
fn the_confirm_column_says_who_asks_before_a_call() {
    let config = notes_config("confirmed.json");
    // The notes server confirms its deletes itself, and says so: the gateway does not ask.
    let delete = "notes_delete_note";
    assert_eq!(confirm_cell(&config, &["tools"], delete), "upstream");
    let write = ["tools", "--confirm", "write"];
    assert_eq!(confirm_cell(&config, &write, delete), "upstream");
    assert_eq!(confirm_cell(&config, &write, "notes_create_note"), "yes");
    assert_eq!(confirm_cell(&config, &["tools"], "notes_create_note"), "no");
    let json = row(&gateway(&config, &["tools", "--json"]), delete);
    assert_eq!(
        (&json["confirm"], &json["upstreamConfirms"]),
        (&false.into(), &true.into()),
        "{json}"
    );
    // A question of the gateway's own on top: both ask.
    let both = file("both.toml", "[tools.notes_delete_note]\nconfirm = true\n");
    let both = ["--overrides", both.to_str().unwrap(), "tools"];
    assert_eq!(confirm_cell(&config, &both, delete), "both");
    // No upstream's word taken: the gateway's policy decides alone.
    let distrust = file(
        "distrust.toml",
        "[tools.\"notes_*\"]\nupstream_confirms = false\n",
    );
    let distrust = distrust.to_str().unwrap();
    let args = ["--overrides", distrust, "tools", "--confirm", "destructive"];
    assert_eq!(confirm_cell(&config, &args, delete), "yes");
    assert_eq!(
        confirm_cell(&config, &["--overrides", distrust, "tools"], delete),
        "no"
    );
}

#[test]
fn a_pinned_snapshot_refuses_or_hides_a_tool_that_changed_since() {
    let config = notes_config("pinned.json");
    let snapshot = file("pinned.snapshot", "");
    let snapshot = snapshot.to_str().unwrap();
    let written = gateway(&config, &["check", snapshot, "--write"]);
    assert!(written.status.success(), "{}", err(&written));
    let text = std::fs::read_to_string(snapshot).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("tool \"notes_get_note\" "))
        .unwrap();
    assert!(line.contains(" description="), "{line}");

    // As reviewed: served and called as ever.
    let search = [
        "call",
        "notes_search_notes",
        "--args",
        r#"{"query": "standup"}"#,
    ];
    let pinned = gateway(&config, &[&["--pin", snapshot][..], &search].concat());
    assert!(pinned.status.success(), "{}", err(&pinned));

    // The upstream now says something else of get_note (here through an override; a server
    // that rewrites its description is caught the same way): refused, and says why.
    let changed = file(
        "changed.toml",
        "[tools.notes_get_note]\ntitle = \"Fetch note\"\nopen_world = true\n",
    );
    let changed = changed.to_str().unwrap();
    let get = ["call", "notes_get_note", "--args", r#"{"note_id": 1}"#];
    let refused = gateway(
        &config,
        &[&["--overrides", changed, "--pin", snapshot][..], &get].concat(),
    );
    assert_eq!(refused.status.code(), Some(1));
    let said = format!("{}{}", out(&refused), err(&refused));
    assert!(
        said.contains("tool 'notes_get_note' changed since the pinned snapshot (openWorld, title)"),
        "{said}"
    );
    assert!(said.contains("check") && said.contains(snapshot), "{said}");
    let listed = gateway(
        &config,
        &["--overrides", changed, "--pin", snapshot, "tools", "--json"],
    );
    let get_row = row(&listed, "notes_get_note");
    assert_eq!(get_row["openWorld"], true, "listed as it is now: {get_row}");
    // The others still answer.
    let others = gateway(
        &config,
        &[&["--overrides", changed, "--pin", snapshot][..], &search].concat(),
    );
    assert!(others.status.success(), "{}", err(&others));

    // Hidden instead.
    let hidden = gateway(
        &config,
        &[
            "--overrides",
            changed,
            "--pin",
            snapshot,
            "--on-change",
            "hide",
            "tools",
        ],
    );
    assert!(hidden.status.success(), "{}", err(&hidden));
    assert!(!out(&hidden).contains("notes_get_note"), "{}", out(&hidden));
    assert!(
        out(&hidden).contains("notes_search_notes"),
        "{}",
        out(&hidden)
    );

    // `check` sees the change as it is, whatever the pin.
    let checked = gateway(
        &config,
        &["--overrides", changed, "--pin", snapshot, "check", snapshot],
    );
    assert_eq!(checked.status.code(), Some(1));
    assert!(
        err(&checked).contains("changed  notes_get_note"),
        "{}",
        err(&checked)
    );

    // A snapshot that is not there is an error at startup, not a server that refuses all.
    let missing = gateway(&config, &["--pin", "/no/such.snapshot", "tools"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        err(&missing).contains("cannot read the pinned snapshot"),
        "{}",
        err(&missing)
    );
}

/// An HTTP API's document in the configuration: its operations listed as tools, and a
/// changed document shows up in `check` against the reviewed snapshot.
#[test]
fn an_openapi_documents_tools_are_listed_and_checked_against_a_snapshot() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/notes_api.yaml");
    let original = std::fs::read_to_string(&fixture).unwrap();
    let document = file("api.yaml", &original);
    let config = file(
        "api.toml",
        &format!(
            "[servers.api]\nopenapi = {:?}\nbase_url = \"http://127.0.0.1:9\"\n",
            document.display().to_string()
        ),
    );
    let listed = gateway(&config, &["tools", "--json"]);
    assert!(listed.status.success(), "{}", err(&listed));
    let fetch = row(&listed, "api_fetchNote");
    assert_eq!(fetch["readOnly"], true, "{fetch}");
    let add = row(&listed, "api_addNote");
    assert_eq!(add["destructive"], false, "x-mcp-hints: {add}");
    // The overrides correct an operation's hints as any upstream tool's.
    let overrides = file(
        "api-overrides.toml",
        "[tools.api_addNote]\nidempotent = true\n",
    );
    let corrected = gateway(
        &config,
        &[
            "--overrides",
            overrides.to_str().unwrap(),
            "tools",
            "--json",
        ],
    );
    assert_eq!(row(&corrected, "api_addNote")["idempotent"], true);
    assert_eq!(add["idempotent"], false, "{add}");

    let snapshot = file("api.snapshot", "");
    let snapshot = snapshot.to_str().unwrap();
    let written = gateway(&config, &["check", snapshot, "--write"]);
    assert!(written.status.success(), "{}", err(&written));
    assert!(gateway(&config, &["check", snapshot]).status.success());
    // The API's document changes what adding does: `check` names the tool.
    let rewritten = original.replace("destructiveHint: false", "destructiveHint: true");
    std::fs::write(&document, rewritten).unwrap();
    let checked = gateway(&config, &["check", snapshot]);
    assert!(!checked.status.success());
    let said = format!("{}{}", out(&checked), err(&checked));
    assert!(said.contains("api_addNote"), "{said}");
}

/// `gateway --help` says that an entry may be an HTTP API, and how it is written.
#[test]
fn the_help_names_http_apis() {
    let help = Command::new(toolsmith())
        .args(["gateway", "--help"])
        .output()
        .unwrap();
    assert!(help.status.success(), "{}", err(&help));
    let help = out(&help);
    assert!(
        help.contains("HTTP API") && help.contains("OpenAPI") && help.contains("openapi = "),
        "{help}"
    );
}

/// A relative `openapi` path is the configuration file's folder's, wherever the gateway runs.
#[test]
fn a_relative_document_is_read_from_the_configurations_folder() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/notes_api.yaml");
    let dir = std::env::temp_dir().join(format!("toolsmith-gateway-rel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&fixture, dir.join("notes.yaml")).unwrap();
    let config = dir.join("gateway.toml");
    std::fs::write(
        &config,
        "[servers.api]\nopenapi = \"notes.yaml\"\nbase_url = \"http://127.0.0.1:9\"\n",
    )
    .unwrap();
    let elsewhere =
        std::env::temp_dir().join(format!("toolsmith-gateway-cwd-{}", std::process::id()));
    std::fs::create_dir_all(&elsewhere).unwrap();
    let listed = Command::new(toolsmith())
        .arg("gateway")
        .arg("--config")
        .arg(&config)
        .args(["tools", "--json"])
        .current_dir(&elsewhere)
        .env("TOOLSMITH_LOG", "off")
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", err(&listed));
    assert_eq!(row(&listed, "api_fetchNote")["readOnly"], true);
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(elsewhere).unwrap();
}

#[test]
fn pin_approve_pins_the_named_tools_as_they_are_now() {
    let config = notes_config("approve.json");
    let snapshot = file("approve.snapshot", "");
    let snapshot = snapshot.to_str().unwrap();
    assert!(
        gateway(&config, &["check", snapshot, "--write"])
            .status
            .success()
    );
    // The upstream now says something else of get_note (through an override).
    let changed = file(
        "approve.toml",
        "[tools.notes_get_note]\ntitle = \"Fetch note\"\nopen_world = true\n",
    );
    let changed = changed.to_str().unwrap();
    let pinned = ["--overrides", changed, "--pin", snapshot];
    let check = gateway(&config, &["--overrides", changed, "check", snapshot]);
    assert!(!check.status.success(), "it drifted: {}", out(&check));

    let approved = gateway(
        &config,
        &[&pinned[..], &["pin", "approve", "notes_get_note"]].concat(),
    );
    assert!(approved.status.success(), "{}", err(&approved));
    assert_eq!(
        out(&approved).trim(),
        "notes_get_note: pinned as it is now (openWorld, title changed)"
    );
    let check = gateway(&config, &["--overrides", changed, "check", snapshot]);
    assert!(
        check.status.success(),
        "pinned: {}{}",
        out(&check),
        err(&check)
    );
    // Served and called again under the pin.
    let get = ["call", "notes_get_note", "--args", r#"{"note_id": 1}"#];
    let called = gateway(&config, &[&pinned[..], &get].concat());
    assert!(called.status.success(), "{}", err(&called));

    let unknown = gateway(
        &config,
        &[&pinned[..], &["pin", "approve", "notes_nothing"]].concat(),
    );
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        err(&unknown).contains("no tool notes_nothing is served"),
        "{}",
        err(&unknown)
    );
    let bare = gateway(&config, &["pin", "approve", "notes_get_note"]);
    assert_eq!(bare.status.code(), Some(2), "without --pin: {}", err(&bare));
    assert!(err(&bare).contains("--pin SNAPSHOT"), "{}", err(&bare));
}
