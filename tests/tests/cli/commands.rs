//! The command line every server binary gets from `toolsmith::run()`, through the notes
//! example binary: tools (and its nginx map), schema, call, check, serving policies, and
//! the commands about resources and prompts (`command_line/resource_prompt_commands.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use toolsmith_tests::{call, example_binary, text};

pub(crate) mod bundle;
mod confirm;
mod items;
mod nginx_map;
mod policy_env;

fn notes() -> PathBuf {
    example_binary("notes")
}

fn run(args: &[&str]) -> Output {
    Command::new(notes())
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The first column of each table row after the header.
fn names(table: &str) -> Vec<String> {
    table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect()
}

#[test]
fn tools_prints_an_aligned_annotation_matrix() {
    let out = run(&["tools"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    let lines: Vec<&str> = table.lines().collect();
    let header = lines[0];
    for column in [
        "NAME",
        "TITLE",
        "READ-ONLY",
        "DESTRUCTIVE",
        "IDEMPOTENT",
        "OPEN-WORLD",
        "CONFIRM",
        "TASK",
        "CATEGORY",
        "SCOPE",
    ] {
        assert!(header.contains(column), "{header}");
    }
    let row = |name: &str| cells(lines.iter().find(|l| l.starts_with(name)).unwrap());
    assert_eq!(
        row("delete_note"),
        [
            "delete_note",
            "Delete note",
            "no",
            "yes",
            "yes",
            "no",
            "yes",
            "-",
            "notes",
            "tools:destructive"
        ]
    );
    assert_eq!(row("create_note")[6], "no", "create_note asks nobody");
    assert_eq!(row("create_note")[9], "tools:write");
    assert_eq!(row("get_note")[9], "tools:read");
    assert_eq!(
        row("import_notes")[7],
        "optional",
        "import_notes may run as a task"
    );
    let column = header.find("DESTRUCTIVE").unwrap();
    for line in &lines[1..] {
        let cell = &line[column..];
        assert!(
            cell.starts_with("yes") || cell.starts_with("no"),
            "aligned: {line}"
        );
    }
    assert_eq!(
        names(&table),
        [
            "create_note",
            "delete_note",
            "get_note",
            "import_notes",
            "import_url",
            "search_notes",
            "tag_chart"
        ]
    );
    assert_eq!(
        row("tag_chart"),
        [
            "tag_chart",
            "Tag chart",
            "yes",
            "no",
            "yes",
            "no",
            "no",
            "-",
            "notes",
            "tools:read"
        ]
    );
}

/// The cells of a table row (columns are separated by two spaces or more).
fn cells(row: &str) -> Vec<&str> {
    row.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

#[test]
fn tools_filters_and_json() {
    assert_eq!(
        names(&stdout(&run(&["tools", "--read-only"]))),
        ["get_note", "search_notes", "tag_chart"]
    );
    assert_eq!(
        names(&stdout(&run(&["tools", "--destructive"]))),
        ["delete_note"]
    );
    assert_eq!(
        names(&stdout(&run(&["tools", "--tag", "write"]))),
        ["create_note", "delete_note", "import_notes", "import_url"]
    );
    assert_eq!(
        names(&stdout(&run(&["tools", "--category", "notes"]))).len(),
        7
    );
    assert_eq!(
        names(&stdout(&run(&["tools", "--tag", "chart"]))),
        ["tag_chart"]
    );
    assert!(names(&stdout(&run(&["tools", "--category", "mail"]))).is_empty());
    assert_eq!(
        names(&stdout(&run(&["tools", "--search", "ID"]))),
        ["create_note", "get_note"],
        "case-insensitive text in name, title or description"
    );

    let out = run(&["tools", "--json", "--read-only"]);
    let rows: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        rows[0],
        json!({
            "name": "get_note", "title": "Get note", "readOnly": true, "destructive": false,
            "idempotent": true, "openWorld": false, "confirm": false,
            "upstreamConfirms": false, "task": null,
            "category": "notes", "tags": ["read"],
            "scopes": ["tools:read"],
        })
    );
    assert_eq!(rows.as_array().unwrap().len(), 3);
}

#[test]
fn schema_prints_tools_list_json() {
    let all: Value = serde_json::from_str(&stdout(&run(&["schema"]))).unwrap();
    assert_eq!(all["tools"].as_array().unwrap().len(), 7);
    let one: Value = serde_json::from_str(&stdout(&run(&["schema", "get_note"]))).unwrap();
    assert_eq!(one["name"], "get_note");
    assert_eq!(one["inputSchema"]["required"], json!(["note_id"]));
    assert_eq!(one["_meta"][toolsmith::tool::META_CATEGORY], "notes");
    let missing = run(&["schema", "nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("no tool is named 'nope'"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn call_runs_the_tool_in_process() {
    let out = run(&[
        "call",
        "search_notes",
        "--args",
        r#"{"query": "lighthouse"}"#,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let value: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["result"][0]["title"], "Book ideas");

    let miss = run(&["call", "get_note", "--args", r#"{"note_id": 99}"#]);
    assert_eq!(miss.status.code(), Some(1));
    assert_eq!(stderr(&miss).trim(), "No note with id 99.");

    let bad = run(&["call", "get_note", "--args", "{not json"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("--args is not valid JSON"),
        "{}",
        stderr(&bad)
    );
    let wrong = run(&["call", "get_note", "--args", r#"{"note_id": "x"}"#]);
    assert_eq!(wrong.status.code(), Some(1));
    assert!(
        stderr(&wrong).contains("argument `note_id` is invalid"),
        "{}",
        stderr(&wrong)
    );
}

#[test]
fn check_passes_unchanged_and_names_the_changed_tool() {
    let dir = std::env::temp_dir().join(format!("toolsmith-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hints.snapshot");
    let path = file.to_str().unwrap();

    let missing = run(&["check", path]);
    assert_eq!(
        missing.status.code(),
        Some(2),
        "a missing snapshot is an error"
    );
    assert!(run(&["check", "--write", path]).status.success());
    let snapshot = std::fs::read_to_string(&file).unwrap();
    let delete_line = snapshot
        .lines()
        .find(|l| l.starts_with("tool \"delete_note\" "))
        .unwrap();
    assert!(
        delete_line.starts_with(
            "tool \"delete_note\" readOnly=false destructive=true idempotent=true openWorld=false confirm=true scopes=tools:destructive input="
        ) && delete_line.ends_with(" title=\"Delete note\""),
        "{snapshot}"
    );
    let same = run(&["check", path]);
    assert!(same.status.success(), "{}", stderr(&same));

    // The committed snapshot says delete_note is not destructive: the code now disagrees.
    let edited = snapshot.replace(
        "\"delete_note\" readOnly=false destructive=true",
        "\"delete_note\" readOnly=false destructive=false",
    );
    std::fs::write(&file, edited).unwrap();
    let changed = run(&["check", path]);
    assert_eq!(changed.status.code(), Some(1));
    let report = stderr(&changed);
    assert!(
        report.contains("changed  delete_note: destructive false -> true"),
        "{report}"
    );
    assert!(
        !report.contains("get_note"),
        "only the changed tool is named: {report}"
    );

    // Who may call a tool changed since the snapshot.
    std::fs::write(
        &file,
        snapshot.replace("scopes=tools:destructive", "scopes=tools:write"),
    )
    .unwrap();
    let report = stderr(&run(&["check", path]));
    assert!(
        report.contains("changed  delete_note: scopes tools:write -> tools:destructive"),
        "{report}"
    );

    // Whether the user is asked first changed since the snapshot.
    std::fs::write(
        &file,
        snapshot.replace(
            "idempotent=true openWorld=false confirm=true",
            "idempotent=true openWorld=false confirm=false",
        ),
    )
    .unwrap();
    let report = stderr(&run(&["check", path]));
    assert!(
        report.contains("changed  delete_note: confirm false -> true"),
        "{report}"
    );

    // A schema that changed since the snapshot: named by its side.
    let get_line = snapshot
        .lines()
        .find(|l| l.starts_with("tool \"get_note\" "))
        .unwrap();
    let input = get_line
        .split(" input=")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    std::fs::write(
        &file,
        snapshot.replace(get_line, &get_line.replace(input, "000000000000")),
    )
    .unwrap();
    let report = stderr(&run(&["check", path]));
    assert!(
        report.contains("changed  get_note: input schema"),
        "{report}"
    );

    // A snapshot written before names were quoted: refused, naming its first line, and
    // asked to be written again.
    let old: String = snapshot
        .lines()
        .map(|l| format!("{}\n", l.replacen("tool \"get_note\"", "get_note", 1)))
        .collect();
    std::fs::write(&file, old).unwrap();
    let outdated = run(&["check", path]);
    assert_eq!(outdated.status.code(), Some(2));
    let said = stderr(&outdated);
    assert!(
        said.contains("is not a hint snapshot: line ")
            && said.contains("\"get_note readOnly=")
            && said.contains("check --write"),
        "{said}"
    );
    // A second line for one tool: refused, naming both lines.
    std::fs::write(&file, format!("{snapshot}{delete_line}\n")).unwrap();
    let twice = run(&["check", path]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(
        stderr(&twice).contains("a second line for tool \"delete_note\""),
        "{}",
        stderr(&twice)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn help_and_usage_errors() {
    let help = run(&["--help"]);
    assert!(help.status.success());
    for command in ["serve", "tools", "schema", "call", "check", "--read-only"] {
        assert!(stdout(&help).contains(command), "{}", stdout(&help));
    }
    let sub = run(&["check", "--help"]);
    assert!(stdout(&sub).contains("--write"), "{}", stdout(&sub));
    // The flags the notes example reads itself are in its help too.
    for help in [&help, &run(&["serve", "--help"])] {
        for flag in ["--fetch-allow", "--fetch-timeout", "--fetch-proxy"] {
            assert!(stdout(help).contains(flag), "{flag}: {}", stdout(help));
        }
    }
    let unknown = run(&["tools", "--bogus"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("unexpected argument '--bogus'"),
        "{}",
        stderr(&unknown)
    );
}

async fn serve_with(
    args: &[&str],
    path: &Path,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let mut command = tokio::process::Command::new(path);
    command.args(args);
    ().serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn serve_read_only_lists_the_read_tools_and_refuses_the_rest() {
    let path = notes();
    let client = serve_with(&["serve", "--read-only"], &path).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["get_note", "search_notes", "tag_chart"]);

    let refused = call(&client, "delete_note", json!({"note_id": 1}))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("--read-only"), "{}", text(&refused));
    let still_there = call(&client, "get_note", json!({"note_id": 1}))
        .await
        .unwrap();
    assert_eq!(
        still_there.is_error,
        Some(false),
        "the refused delete did not run"
    );
    client.cancel().await.unwrap();

    let client = serve_with(&["--deny-destructive"], &path).await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        [
            "create_note",
            "get_note",
            "import_notes",
            "import_url",
            "search_notes",
            "tag_chart"
        ]
    );
    client.cancel().await.unwrap();

    let client = serve_with(&["serve", "--only-tag", "write"], &path).await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        ["create_note", "delete_note", "import_notes", "import_url"]
    );
    let refused = call(&client, "search_notes", json!({"query": "x"}))
        .await
        .unwrap();
    assert!(
        text(&refused).contains("--only-tag write"),
        "{}",
        text(&refused)
    );
    client.cancel().await.unwrap();
}

/// A server's logs follow `RUST_LOG` when `TOOLSMITH_LOG` is unset, and `TOOLSMITH_LOG`
/// when both are set; on stderr, stdout carrying the protocol's frames only.
#[test]
fn rust_log_is_followed_when_toolsmith_log_is_unset() {
    use std::io::Write;
    let session = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "logs", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "get_note", "arguments": {"note_id": 1}}}),
    ];
    let serve = |toolsmith_log: Option<&str>| {
        let mut command = Command::new(notes());
        command
            .env_remove("TOOLSMITH_LOG")
            .env("RUST_LOG", "debug")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        if let Some(level) = toolsmith_log {
            command.env("TOOLSMITH_LOG", level);
        }
        let mut child = command.spawn().expect("the binary runs");
        let mut input = child.stdin.take().unwrap();
        for message in &session {
            writeln!(input, "{message}").unwrap();
        }
        drop(input);
        child.wait_with_output().unwrap()
    };
    let debug = serve(None);
    assert!(stderr(&debug).contains("DEBUG"), "{}", stderr(&debug));
    for line in stdout(&debug).lines() {
        let frame: Value = serde_json::from_str(line).expect("stdout carries frames only");
        assert_eq!(frame["jsonrpc"], "2.0", "{line}");
    }
    assert!(stdout(&debug).contains("Groceries"), "{}", stdout(&debug));
    let warn = serve(Some("warn"));
    assert!(!stderr(&warn).contains("DEBUG"), "{}", stderr(&warn));
}
