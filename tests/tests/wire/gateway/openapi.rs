//! HTTP APIs as upstreams: a FastAPI application (its generated OpenAPI 3.1 document, read
//! from `/openapi.json`) and a hand-written OpenAPI 3.0 YAML document of the same API, each
//! operation a tool with hints from its HTTP method, called with the configured credential.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use toolsmith::testing::{CallError, Client};
use toolsmith::{Hints, Server, error::ErrorKind, server::Policy};
use toolsmith_gateway::{OpenApi, Upstream};

/// The notes HTTP API (interop/python/notes_api.py, FastAPI) running on a free loopback
/// port: the process (stopped when dropped) and its base URL.
pub(super) struct NotesApi {
    _child: tokio::process::Child,
    pub(super) base: String,
}

pub(super) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A test client of a server serving what `mounted` mounted.
async fn client_of(mounted: &toolsmith_gateway::Mounted) -> Client {
    Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap()
}

pub(super) async fn notes_api() -> NotesApi {
    let python = root().join("interop/python/.venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/prepare (it installs FastAPI from interop/python/requirements.lock)",
        python.display()
    );
    let mut child = tokio::process::Command::new(python)
        .arg(root().join("interop/python/notes_api.py"))
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .expect("the notes API did not start within 20 s")
        .unwrap()
        .unwrap_or_default();
    let port = line.strip_prefix("listening on ").expect(&line).to_owned();
    NotesApi {
        _child: child,
        base: format!("http://127.0.0.1:{port}"),
    }
}

#[tokio::test]
async fn a_fastapi_apps_operations_are_tools_with_hints_from_their_methods() {
    let api = notes_api().await;
    let document = format!("{}/openapi.json", api.base);
    // The API key, from a file the configuration names.
    let key = std::env::temp_dir().join(format!("toolsmith-api-key-{}", std::process::id()));
    std::fs::write(&key, "secret-key\n").unwrap();
    let credential = format!("${{file:{}}}", key.display());
    let mounted = Upstream::openapi(
        "notes",
        OpenApi::new(&document).credential("APIKeyHeader", credential),
    )
    .connect()
    .await
    .unwrap();
    // `toolsmith audit`'s rules find no error in what the document became.
    let errors: Vec<_> = mounted
        .findings()
        .iter()
        .filter(|f| f.severity() == toolsmith_audit::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let client = client_of(&mounted).await;
    let tools = client.tools().await.unwrap();
    let hints = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name);
        tool.unwrap_or_else(|| panic!("no tool {name}")).hints
    };
    let reads = Hints::READ_ONLY.closed_world();
    assert_eq!(hints("notes_list_notes"), reads);
    assert_eq!(hints("notes_get_note"), reads);
    assert_eq!(hints("notes_health"), reads);
    let writes = |idempotent| Hints {
        read_only: false,
        destructive: true,
        idempotent,
        open_world: false,
    };
    assert_eq!(hints("notes_create_note"), writes(false));
    assert_eq!(hints("notes_edit_note"), writes(false));
    assert_eq!(hints("notes_replace_note"), writes(true));
    assert_eq!(hints("notes_delete_note"), writes(true));
    // Deprecated operations are left out; the API key is the configuration's, not an argument.
    assert!(!tools.iter().any(|t| t.name.contains("legacy")));
    let create = tools
        .iter()
        .find(|t| t.name == "notes_create_note")
        .unwrap();
    assert_eq!(create.title.as_deref(), Some("Create a note"));
    let registry = mounted.registry().unwrap();
    let schema_of = |name: &str| registry.get(name).unwrap().input_schema().clone();
    let input = serde_json::to_string(&schema_of("notes_create_note")).unwrap();
    assert!(
        input.contains("\"body\"") && !input.to_lowercase().contains("api-key"),
        "{input}"
    );
    // An optional query parameter: described by its type, never as `null`-able.
    assert_eq!(
        schema_of("notes_list_notes")["properties"]["tag"],
        json!({"type": "string", "title": "Tag"})
    );

    // Path, query and header parameters; the JSON answer as structured content.
    let note = client
        .call("notes_get_note", json!({"note_id": 1, "x-trace": "t1"}))
        .await
        .unwrap();
    let note = note.structured().unwrap().clone();
    assert_eq!(note["title"], "Groceries");
    assert_eq!(note["body"], "eggs, milk (trace t1)");
    let work = client
        .call("notes_list_notes", json!({"tag": "work", "limit": 5}))
        .await
        .unwrap();
    assert_eq!(work.structured().unwrap()["total"], 1);
    // A JSON body, with the configured API key.
    let created = client
        .call(
            "notes_create_note",
            json!({"body": {"title": "New", "body": "b"}}),
        )
        .await
        .unwrap();
    let id = created.structured().unwrap()["id"].as_i64().unwrap();
    let replaced = client
        .call(
            "notes_replace_note",
            json!({"note_id": id, "body": {"title": "Replaced", "tag": "work"}}),
        )
        .await
        .unwrap();
    assert_eq!(replaced.structured().unwrap()["tag"], "work");
    let edited = client
        .call(
            "notes_edit_note",
            json!({"note_id": id, "body": {"title": "Newer"}}),
        )
        .await
        .unwrap();
    assert_eq!(edited.structured().unwrap()["title"], "Newer");
    let deleted = client
        .call("notes_delete_note", json!({"note_id": id}))
        .await
        .unwrap();
    assert!(deleted.text().contains("204"), "{}", deleted.text());
    // An error status: an error result with the status and what the API said.
    let missing = client
        .call("notes_get_note", json!({"note_id": 99}))
        .await
        .unwrap_err();
    assert!(matches!(
        missing,
        CallError::Tool {
            kind: ErrorKind::Tool,
            ..
        }
    ));
    let said = missing.message();
    assert!(
        said.contains("HTTP 404") && said.contains("no note 99"),
        "{said}"
    );

    // A redirect is followed within the API's origin, never to another (with the API key).
    let moved = client
        .call("notes_moved_note", json!({"note_id": 1}))
        .await
        .unwrap();
    assert!(moved.text().contains("Groceries"), "{}", moved.text());
    let elsewhere = client.call("notes_elsewhere", json!({})).await.unwrap_err();
    assert!(elsewhere.message().contains("HTTP 307"), "{elsewhere:?}");

    // Bytes that are not text come back as an embedded resource holding them.
    let logo = client.call("notes_logo", json!({})).await.unwrap();
    let block = serde_json::to_value(&logo.result().content[0]).unwrap();
    assert_eq!(block["type"], "resource", "{block}");
    assert_eq!(block["resource"]["mimeType"], "image/png", "{block}");
    assert_eq!(block["resource"]["blob"], "iVBORw0KGgr//g==", "{block}");

    // An answer longer than the cap is an error, not a truncated answer.
    let capped = Upstream::openapi("capped", OpenApi::new(&document).max_answer_bytes(64))
        .connect()
        .await
        .unwrap();
    let client_capped = client_of(&capped).await;
    // A call past the upstream's call timeout is an error, and the gateway keeps serving.
    let hurried = Upstream::openapi("hurried", OpenApi::new(&document))
        .call_timeout(Duration::from_millis(300))
        .connect()
        .await
        .unwrap();
    let client_hurried = client_of(&hurried).await;
    let late = client_hurried
        .call("hurried_slow", json!({"seconds": 3}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            late,
            CallError::Tool {
                kind: ErrorKind::TimedOut,
                ..
            }
        ),
        "{late:?}"
    );
    let quick = client_hurried
        .call("hurried_slow", json!({"seconds": 0}))
        .await;
    assert!(quick.is_ok(), "{quick:?}");
    let long = client_capped
        .call("capped_list_notes", json!({}))
        .await
        .unwrap_err();
    assert!(long.message().contains("longer than 64 bytes"), "{long:?}");

    // The policy applies, from the method's hints: read-only serving lists only the reads.
    let read_only =
        Server::with_registry(mounted.registry().unwrap()).policy(Policy::new().read_only(true));
    let client = Client::connect(read_only).await.unwrap();
    let listed: Vec<String> = client
        .tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(listed.contains(&"notes_get_note".to_owned()), "{listed:?}");
    assert!(
        !listed
            .iter()
            .any(|n| n.contains("create") || n.contains("delete")),
        "{listed:?}"
    );

    // Without its credential, a write is refused before it is sent, saying what is missing.
    let bare = Upstream::openapi("bare", OpenApi::new(&document))
        .connect()
        .await
        .unwrap();
    let client = client_of(&bare).await;
    let refused = client
        .call("bare_create_note", json!({"body": {"title": "x"}}))
        .await
        .unwrap_err();
    assert!(
        refused
            .message()
            .contains("needs credentials for APIKeyHeader"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_hand_written_yaml_document_with_refs_and_stated_hints() {
    let api = notes_api().await;
    let document = root().join("tests/fixtures/notes_api.yaml");
    let mounted = Upstream::openapi(
        "hand",
        OpenApi::new(document.display().to_string())
            .base_url(&api.base)
            .credential("key", "secret-key"),
    )
    .connect()
    .await
    .unwrap();
    let client = client_of(&mounted).await;
    let tools = client.tools().await.unwrap();
    let fetch = tools.iter().find(|t| t.name == "hand_fetchNote").unwrap();
    assert_eq!(fetch.hints, Hints::READ_ONLY.closed_world());
    // `$ref`s inlined; OpenAPI 3.0's keywords as JSON Schema's.
    let registry = mounted.registry().unwrap();
    let fetch_info = registry.get("hand_fetchNote").unwrap();
    assert_eq!(
        fetch_info.input_schema()["properties"]["note_id"],
        json!({"type": "integer", "exclusiveMinimum": 0, "description": "The note's id."})
    );
    let output = fetch_info.output_schema().unwrap();
    assert_eq!(output["properties"]["tag"], json!({"type": "string"}));
    // `x-mcp-hints` says adding never overwrites: not destructive (still not idempotent).
    let add = tools.iter().find(|t| t.name == "hand_addNote").unwrap();
    assert!(!add.hints.destructive && !add.hints.idempotent && !add.hints.read_only);

    let added = client
        .call("hand_addNote", json!({"body": {"title": "From YAML"}}))
        .await
        .unwrap();
    let id = added.structured().unwrap()["id"].as_i64().unwrap();
    let fetched = client
        .call("hand_fetchNote", json!({"note_id": id}))
        .await
        .unwrap();
    assert_eq!(fetched.structured().unwrap()["title"], "From YAML");
}
