//! `bundle`: the MCP Bundle of the notes example and its `server.json`, read back: the
//! manifest lists the tools the server serves and its prompt, asks for the serving policy and
//! the setting the program declared, and runs the binary it holds; `server.json` names the
//! bundle by its SHA-256. (Installed and called by a real client: interop's `bundle` part.)

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{notes, run, stderr, stdout};

pub(crate) fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolsmith-bundle-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The one `.mcpb` in `dir`.
pub(crate) fn bundle_in(dir: &Path) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "mcpb"))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found.into_iter().next().unwrap()
}

pub(crate) fn manifest_of(bundle: &Path) -> Value {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(bundle).unwrap()).unwrap();
    let mut text = String::new();
    zip.by_name("manifest.json")
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn a_bundle_lists_what_the_server_serves_and_asks_for_its_settings() {
    let dir = out_dir("manifest");
    let out = run(&[
        "bundle",
        "--out",
        dir.to_str().unwrap(),
        "--repository",
        "https://github.com/ada/notes",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bundle = bundle_in(&dir);
    assert!(
        stdout(&out).contains(&bundle.display().to_string()),
        "{}",
        stdout(&out)
    );
    let manifest = manifest_of(&bundle);

    let listed = run(&["tools", "--json"]);
    let served: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let mut served: Vec<&str> = served
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    served.sort_unstable();
    let mut in_bundle: Vec<&str> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    in_bundle.sort_unstable();
    assert_eq!(in_bundle, served);
    assert_eq!(manifest["prompts"][0]["name"], "summarize_notes");
    assert_eq!(manifest["prompts"][0]["arguments"][0], "tag");
    assert_eq!(manifest["prompts_generated"], true);

    // The host runs the binary it holds, serving, with the user's policy as flags and the
    // program's setting in its variable.
    assert_eq!(manifest["server"]["entry_point"], "server/notes");
    let config = &manifest["server"]["mcp_config"];
    assert_eq!(config["args"][0], "serve");
    assert!(
        config["args"]
            .as_array()
            .unwrap()
            .contains(&"--read-only=${user_config.read_only}".into()),
        "{config}"
    );
    assert_eq!(
        config["env"]["NOTES_FETCH_ALLOW"],
        "${user_config.notes_fetch_allow}"
    );
    let fields = &manifest["user_config"];
    assert_eq!(fields["read_only"]["type"], "boolean");
    assert_eq!(fields["confirm"]["default"], "none");
    assert_eq!(fields["notes_fetch_allow"]["default"], "");
    // Cargo's description, and the GitHub owner for want of `authors`.
    assert_eq!(
        manifest["description"],
        "Example MCP servers written with toolsmith: the notes server of the MCP tutorial."
    );
    assert_eq!(manifest["author"]["name"], "ada");
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    let held = zip.by_name("server/notes").unwrap();
    assert_eq!(held.size(), std::fs::metadata(notes()).unwrap().len());
    assert_eq!(held.unix_mode().map(|mode| mode & 0o111), Some(0o111));

    let entry: Value =
        serde_json::from_slice(&std::fs::read(dir.join("server.json")).unwrap()).unwrap();
    let digest: String = Sha256::digest(std::fs::read(&bundle).unwrap())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(entry["packages"][0]["fileSha256"], digest.as_str());
    assert_eq!(entry["name"], "io.github.ada/toolsmith-examples");
    let url = entry["packages"][0]["identifier"].as_str().unwrap();
    assert!(
        url.starts_with("https://github.com/ada/notes/releases/download/v0.1.0/"),
        "{url}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_a_registry_name_the_bundle_is_written_and_the_missing_flags_named() {
    let dir = out_dir("plain");
    let out = run(&[
        "bundle",
        "--out",
        dir.to_str().unwrap(),
        "--author",
        "Ada <ada@example.com>",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let manifest = manifest_of(&bundle_in(&dir));
    assert_eq!(manifest["author"]["email"], "ada@example.com");
    assert!(!dir.join("server.json").exists());
    assert!(stderr(&out).contains("--registry-name"), "{}", stderr(&out));

    let out = run(&[
        "bundle",
        "--out",
        dir.to_str().unwrap(),
        "--author",
        "Ada",
        "--registry-name",
        "notes",
        "--url",
        "https://example.com/notes.mcpb",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("NAMESPACE/NAME"), "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bundle_without_an_author_says_how_to_give_one() {
    let dir = out_dir("anonymous");
    let out = Command::new(notes())
        .args(["bundle", "--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--author NAME"), "{}", stderr(&out));
    assert!(!dir.exists() || std::fs::read_dir(&dir).unwrap().next().is_none());
}

#[test]
fn the_help_lists_the_programs_settings() {
    let out = run(&["--help"]);
    let help = stdout(&out);
    assert!(help.contains("NOTES_FETCH_ALLOW"), "{help}");
}
