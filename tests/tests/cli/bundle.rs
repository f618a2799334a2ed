//! `toolsmith bundle -- SERVER [ARGS...]`: an MCP Bundle of any stdio server binary, made
//! from what the server lists as a client sees it (the notes example here), the host running
//! the binary with the arguments given; a script is refused with the way to pack it.

use std::process::Command;

use crate::commands::bundle::{bundle_in, manifest_of, out_dir};
use toolsmith_tests::example_binary;

fn toolsmith() -> std::path::PathBuf {
    toolsmith_tests::built("toolsmith-cli", "--bin", "toolsmith")
}

#[test]
fn toolsmith_bundles_a_server_binary_as_a_client_sees_it() {
    let dir = out_dir("cli");
    let notes = example_binary("notes");
    let out = Command::new(toolsmith())
        .args([
            "bundle",
            "--out",
            dir.to_str().unwrap(),
            "--description",
            "Notes.",
        ])
        .args([
            "--author",
            "Ada",
            "--setting",
            "NOTES_FETCH_ALLOW=hosts import_url may reach",
            "--secret-setting",
            "NOTES_TOKEN=the notes service's token",
        ])
        .args([
            "--registry-name",
            "io.example/notes",
            "--url",
            "https://example.com/n.mcpb",
        ])
        .arg("--")
        .arg(&notes)
        .args(["serve", "--read-only"])
        .env("TOOLSMITH_LOG", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let manifest = manifest_of(&bundle_in(&dir));
    let config = &manifest["server"]["mcp_config"];
    assert_eq!(config["args"], serde_json::json!(["serve", "--read-only"]));
    assert_eq!(
        config["env"]["NOTES_FETCH_ALLOW"],
        "${user_config.notes_fetch_allow}"
    );
    assert_eq!(
        manifest["user_config"]["notes_fetch_allow"]["description"],
        "hosts import_url may reach"
    );
    // What the server served with those arguments: its read-only tools.
    let tools: Vec<&str> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["get_note", "search_notes", "tag_chart"]);
    assert_eq!(manifest["name"], "toolsmith-examples");
    assert_eq!(manifest["prompts"][0]["name"], "summarize_notes");
    let entry: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("server.json")).unwrap()).unwrap();
    assert_eq!(entry["name"], "io.example/notes");
    assert_eq!(
        entry["packages"][0]["environmentVariables"][0]["name"],
        "NOTES_FETCH_ALLOW"
    );
    assert_eq!(manifest["user_config"]["notes_token"]["sensitive"], true);
    let secret = &entry["packages"][0]["environmentVariables"][1];
    assert_eq!(
        (secret["name"].as_str(), secret["isSecret"].as_bool()),
        (Some("NOTES_TOKEN"), Some(true))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn toolsmith_bundle_refuses_a_script_and_says_how_to_pack_one() {
    let dir = out_dir("script");
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("server.sh");
    std::fs::write(&script, "#!/bin/sh\nexec cat\n").unwrap();
    let out = Command::new(toolsmith())
        .args(["bundle", "--out", dir.to_str().unwrap(), "--"])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not a native binary") && stderr.contains("mcpb pack"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
