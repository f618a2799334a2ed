//! A tool asks for `State<T>` that nobody registered. Serving refuses to start, naming the
//! tool and the type; everything that does not run the tool works without it: the test
//! client (in-process, with the tool defined in this test binary, which is why it has a
//! binary of its own: the registry holds every tool of the program), and the `tools`,
//! `schema`, `check` and `call` commands (the `state_cli` binary).

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::json;
use toolsmith::testing::{CallError, Client};
use toolsmith::{State, error::ErrorKind, tool};

/// Configuration the tests register only sometimes.
struct Config {
    url: String,
}

/// The configured URL.
#[tool(read_only, idempotent, closed_world)]
fn configured_url(config: State<Config>) -> String {
    config.url.clone()
}

/// Add two numbers.
#[tool(read_only, idempotent, closed_world)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Asserts that `message` names the tool and the state, and says where to register it.
fn names_the_missing_state(message: &str, tool: &str, state: &str) {
    assert!(message.contains(&format!("'{tool}'")), "{message}");
    assert!(message.contains(&format!("`State<{state}>`")), "{message}");
    assert!(message.contains(".state(value)"), "{message}");
    assert!(
        !message.contains("in main"),
        "not every server is in main: {message}"
    );
}

#[tokio::test]
async fn the_test_client_connects_without_the_state_and_names_it_when_the_tool_is_called() {
    for fast_path in [true, false] {
        let server =
            toolsmith::__private::fast_path(toolsmith_tests::server_of(module_path!()), fast_path);
        let client = Client::connect(server)
            .await
            .expect("a missing state does not stop the test client");
        let names: Vec<String> = client
            .list_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names, ["add", "configured_url"], "both tools are listed");

        let sum = client.call("add", json!({"a": 2, "b": 3})).await.unwrap();
        assert_eq!(sum.data::<i64>().unwrap(), 5, "other tools work");

        let err = client.call("configured_url", json!({})).await.unwrap_err();
        let CallError::Tool { kind, message, .. } = &err else {
            panic!("an error result, not {err:?}");
        };
        assert_eq!(*kind, ErrorKind::Failed, "{message}");
        names_the_missing_state(message, "configured_url", "server::missing_state::Config");
    }
}

#[tokio::test]
async fn with_the_state_registered_the_tool_runs() {
    let server = toolsmith_tests::server_of(module_path!()).state(Config {
        url: "postgres://db".into(),
    });
    let client = Client::connect(server).await.unwrap();
    let outcome = client.call("configured_url", json!({})).await.unwrap();
    assert_eq!(outcome.text(), "postgres://db");
}

#[tokio::test]
async fn serving_still_refuses_to_start() {
    let (_client, server) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(server);
    let err = toolsmith_tests::server_of(module_path!())
        .serve_io(read, write)
        .await
        .unwrap_err();
    assert!(
        matches!(err, toolsmith::Error::MissingState { .. }),
        "{err}"
    );
    names_the_missing_state(
        &err.to_string(),
        "configured_url",
        "server::missing_state::Config",
    );
}

fn state_cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_state_cli"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn listing_schemas_and_snapshots_need_no_state() {
    let tools = state_cli(&["tools"]);
    assert!(tools.status.success(), "{}", stderr(&tools));
    let table = stdout(&tools);
    assert!(
        table.lines().any(|l| l.starts_with("search_db ")),
        "{table}"
    );

    let schema = state_cli(&["schema", "search_db"]);
    assert!(schema.status.success(), "{}", stderr(&schema));
    let schema: serde_json::Value = serde_json::from_slice(&schema.stdout).unwrap();
    assert_eq!(schema["name"], "search_db");
    assert_eq!(
        schema["inputSchema"]["required"],
        json!(["query"]),
        "the state is no argument"
    );

    let dir = std::env::temp_dir().join(format!("toolsmith-state-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hints.snapshot");
    let path = file.to_str().unwrap();
    let write = state_cli(&["check", "--write", path]);
    assert!(write.status.success(), "{}", stderr(&write));
    let snapshot = std::fs::read_to_string(&file).unwrap();
    assert!(
        snapshot.contains("tool \"search_db\" readOnly=true"),
        "{snapshot}"
    );
    let check = state_cli(&["check", path]);
    assert!(check.status.success(), "{}", stderr(&check));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn call_runs_other_tools_and_names_the_missing_state() {
    let echo = state_cli(&["call", "echo", "--args", r#"{"text": "hi"}"#]);
    assert!(echo.status.success(), "{}", stderr(&echo));
    assert_eq!(stdout(&echo).trim(), "hi");

    let search = state_cli(&["call", "search_db", "--args", r#"{"query": "x"}"#]);
    assert_eq!(search.status.code(), Some(1), "{}", stderr(&search));
    assert!(stdout(&search).is_empty());
    names_the_missing_state(&stderr(&search), "search_db", "state_cli::Database");
}

#[test]
fn serve_refuses_to_start_naming_the_state() {
    let closed = state_cli(&[]);
    assert_eq!(closed.status.code(), Some(1), "{}", stderr(&closed));
    names_the_missing_state(&stderr(&closed), "search_db", "state_cli::Database");

    // With a request waiting: nothing is answered, stdout stays empty.
    let mut child = Command::new(env!("CARGO_BIN_EXE_state_cli"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}}
    });
    let mut stdin = child.stdin.take().unwrap();
    // The server may have exited already (a broken pipe is fine).
    let _ = writeln!(stdin, "{initialize}");
    drop(stdin);
    let served = child.wait_with_output().unwrap();
    assert_eq!(served.status.code(), Some(1), "{}", stderr(&served));
    assert!(stdout(&served).is_empty(), "{}", stdout(&served));
    names_the_missing_state(&stderr(&served), "search_db", "state_cli::Database");
}
