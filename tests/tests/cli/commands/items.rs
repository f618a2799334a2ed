//! The commands about resources and prompts: `resources`, `prompts` (tables and JSON),
//! `read URI`, `prompt NAME --args JSON`, `schema` of a prompt, and their lines in the
//! `check` snapshot.

use serde_json::Value;

use super::{names, run, stderr, stdout};

#[test]
fn resources_and_prompts_list_what_is_declared() {
    let out = run(&["resources"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(table.starts_with("URI "), "{table}");
    assert_eq!(names(&table), ["notes://index", "notes://{note_id}"]);
    let row = table
        .lines()
        .find(|l| l.starts_with("notes://{note_id}"))
        .unwrap();
    assert!(
        row.contains("note_id") && row.ends_with("tools:read"),
        "{row}"
    );

    let json: Value = serde_json::from_str(&stdout(&run(&["resources", "--json"]))).unwrap();
    assert_eq!(json[0]["uri"], "notes://index");
    assert_eq!(json[0]["template"], false);
    assert_eq!(json[1]["template"], true);
    assert_eq!(json[1]["completes"], serde_json::json!(["note_id"]));

    let prompts = stdout(&run(&["prompts"]));
    assert_eq!(names(&prompts), ["summarize_notes"]);
    assert!(prompts.contains("tag?"), "an optional argument: {prompts}");
    let json: Value = serde_json::from_str(&stdout(&run(&["prompts", "--json"]))).unwrap();
    assert_eq!(json[0]["arguments"][0]["name"], "tag");
    assert_eq!(json[0]["scopes"], serde_json::json!(["tools:read"]));
}

#[test]
fn read_and_prompt_answer_as_a_client_would_get_them() {
    let note = run(&["read", "notes://2"]);
    assert!(note.status.success(), "{}", stderr(&note));
    let note: Value = serde_json::from_str(stdout(&note).trim()).unwrap();
    assert_eq!(note["title"], "Standup notes");
    let missing = run(&["read", "notes://99"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("Resource not found: notes://99 (-32002)"),
        "{}",
        stderr(&missing)
    );

    let prompt = run(&["prompt", "summarize_notes", "--args", r#"{"tag": "work"}"#]);
    assert!(prompt.status.success(), "{}", stderr(&prompt));
    let prompt: Value = serde_json::from_str(&stdout(&prompt)).unwrap();
    let text = prompt["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(
        text.contains("Standup notes") && !text.contains("Groceries"),
        "{text}"
    );
    assert!(prompt.get("resultType").is_none());
    let bad = run(&["prompt", "summarize_notes", "--args", "[1]"]);
    assert_eq!(bad.status.code(), Some(2));
    let unknown = run(&["prompt", "nope"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("unknown prompt 'nope'"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn schema_covers_a_prompts_arguments() {
    let out = run(&["schema", "summarize_notes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let schema: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        schema["argumentsSchema"]["properties"]["tag"]["type"],
        "string"
    );
    assert_eq!(schema["argumentsSchema"]["required"], serde_json::json!([]));
    let all: Value = serde_json::from_str(&stdout(&run(&["schema"]))).unwrap();
    assert_eq!(all["prompts"][0]["name"], "summarize_notes");
}

#[test]
fn the_snapshot_records_resources_and_prompts() {
    let dir = std::env::temp_dir().join(format!("toolsmith-check-items-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hints.snapshot");
    let path = file.to_str().unwrap();
    let written = run(&["check", "--write", path]);
    assert!(
        stdout(&written).contains("tools, 2 resources and 1 prompt"),
        "{}",
        stdout(&written)
    );
    let snapshot = std::fs::read_to_string(&file).unwrap();
    let index = snapshot
        .lines()
        .find(|l| l.starts_with("resource \"notes://index\" "))
        .unwrap();
    assert!(
        index.starts_with(
            "resource \"notes://index\" name=\"note_index\" template=false mime=\"application/json\" audience=user,assistant priority=0.8 scopes=tools:read input="
        ) && index.ends_with(" title=\"Note index\""),
        "{index}"
    );
    assert!(
        snapshot.contains("\nresource \"notes://{note_id}\" name=\"note\" template=true "),
        "{snapshot}"
    );
    assert!(
        snapshot.contains("\nprompt \"summarize_notes\" scopes=tools:read input="),
        "{snapshot}"
    );
    assert!(run(&["check", path]).status.success());

    std::fs::write(&file, snapshot.replace("priority=0.8", "priority=0.5")).unwrap();
    let report = stderr(&run(&["check", path]));
    assert!(
        report.contains("changed  resource:notes://index: priority 0.5 -> 0.8"),
        "{report}"
    );
    let without: String = snapshot
        .lines()
        .filter(|l| !l.starts_with("prompt "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&file, without).unwrap();
    let report = stderr(&run(&["check", path]));
    assert!(
        report.contains("added    prompt:summarize_notes"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
