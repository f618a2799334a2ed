//! The MCP metrics of OpenTelemetry's semantic conventions, as Prometheus scrapes them:
//! `mcp_server_operation_duration_seconds` for every method a server answered (on rmcp's
//! path and on the fast path, over HTTP and stdio), labelled `mcp_method_name`,
//! `gen_ai_tool_name`, `error_type`, `network_transport` and `mcp_protocol_version`, and
//! `mcp_server_session_duration_seconds` for a session that ended.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use toolsmith_tests::http::{HttpServer, request};
use toolsmith_tests::raw::Raw;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const OPERATION: &str = "mcp_server_operation_duration_seconds_count";

/// The value of the first series of `name` that has every label of `labels` and none of
/// `absent`.
fn series(text: &str, name: &str, labels: &[(&str, &str)], absent: &[&str]) -> Option<f64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(name)?.strip_prefix('{')?;
        let (set, value) = rest.split_once("} ")?;
        let has = labels.iter().all(|(key, value)| {
            set.split(',')
                .any(|pair| pair == format!("{key}=\"{value}\""))
        });
        let lacks = absent.iter().all(|key| {
            !set.split(',')
                .any(|pair| pair.starts_with(&format!("{key}=")))
        });
        (has && lacks).then(|| value.trim().parse().expect("a number"))
    })
}

fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn initialize(id: u64) -> Value {
    rpc(
        id,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "conventions-test", "version": "0"}}),
    )
}

#[tokio::test]
async fn every_method_over_http_is_timed_with_the_conventions_labels() {
    // A session: initialize, tools/list, three calls, ping on the fast path; then
    // `logging/setLevel` moves it to rmcp's service (which replays its handshake: not a
    // second `initialize`, nor a second session); then it ends.
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let opened = server.post(&initialize(0), &[]).await;
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    server.post(&initialized, &headers).await;
    let script = [
        rpc(1, "tools/list", json!({})),
        rpc(
            2,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        ),
        rpc(
            3,
            "tools/call",
            json!({"name": "refusing", "arguments": {}}),
        ),
        rpc(
            4,
            "tools/call",
            json!({"name": "no_such_tool_x", "arguments": {}}),
        ),
        rpc(5, "ping", json!({})),
        rpc(6, "logging/setLevel", json!({"level": "error"})),
    ];
    for message in &script {
        let answer = server.post(message, &headers).await;
        assert_eq!(answer.status, 200, "{message}: {answer:?}");
    }
    let ended = request(&server.addr, "DELETE", &server.path, &headers, "").await;
    assert!(ended.status < 300, "{ended:?}");
    let tcp = ("network_transport", "tcp");
    let v = ("mcp_protocol_version", "2025-11-25");
    let mut text = String::new();
    for _ in 0..100 {
        text = request(&server.addr, "GET", "/metrics", &[], "").await.body;
        if series(
            &text,
            "mcp_server_session_duration_seconds_count",
            &[tcp, v],
            &[],
        )
        .is_some()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let method = |name| ("mcp_method_name", name);
    for name in ["initialize", "tools/list", "ping"] {
        let found = series(&text, OPERATION, &[method(name), tcp, v], &["error_type"]);
        assert_eq!(found, Some(1.0), "{name}:\n{text}");
    }
    let call = method("tools/call");
    let add = series(
        &text,
        OPERATION,
        &[call, ("gen_ai_tool_name", "add"), tcp, v],
        &["error_type"],
    );
    assert_eq!(add, Some(1.0), "{text}");
    let refused = [
        call,
        ("gen_ai_tool_name", "refusing"),
        ("error_type", "tool_error"),
    ];
    assert_eq!(series(&text, OPERATION, &refused, &[]), Some(1.0), "{text}");
    // A name the registry lacks is `unknown`, never the name sent; its error is the code.
    let unknown = [
        call,
        ("gen_ai_tool_name", "unknown"),
        ("error_type", "-32602"),
    ];
    assert_eq!(series(&text, OPERATION, &unknown, &[]), Some(1.0), "{text}");
    assert!(!text.contains("no_such_tool_x"), "{text}");
    let sessions = series(
        &text,
        "mcp_server_session_duration_seconds_count",
        &[tcp, v],
        &[],
    );
    assert_eq!(sessions, Some(1.0), "the session that ended:\n{text}");

    // Stateless, on the fast path: the list and the call are timed as well.
    let server = HttpServer::start(FIXTURE, &[]).await;
    let version = [("MCP-Protocol-Version", "2025-11-25")];
    server
        .post(&rpc(1, "tools/list", json!({})), &version)
        .await;
    let add = rpc(
        2,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
    );
    server.post(&add, &version).await;
    let text = request(&server.addr, "GET", "/metrics", &[], "").await.body;
    let listed = series(&text, OPERATION, &[method("tools/list"), tcp, v], &[]);
    assert_eq!(listed, Some(1.0), "{text}");
    let called = series(
        &text,
        OPERATION,
        &[call, ("gen_ai_tool_name", "add"), tcp, v],
        &[],
    );
    assert_eq!(called, Some(1.0), "{text}");
    assert!(
        text.contains("# TYPE mcp_server_operation_duration_seconds histogram"),
        "{text}"
    );
}

#[tokio::test]
async fn a_stdio_servers_methods_are_timed_over_the_pipe() {
    let mut command = tokio::process::Command::new(FIXTURE);
    command.args(["serve", "--metrics-addr", "127.0.0.1:0"]);
    let mut raw = Raw::spawn(command, Stdio::piped());
    let mut lines = BufReader::new(raw.child.stderr.take().unwrap()).lines();
    let addr = toolsmith_tests::asking::metrics_address(&mut lines).await;
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    raw.init().await;
    raw.ask(&rpc(2, "tools/list", json!({}))).await;
    raw.ask(&rpc(
        3,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
    ))
    .await;
    let text = request(&addr, "GET", "/metrics", &[], "").await.body;
    let pipe = ("network_transport", "pipe");
    for name in ["initialize", "tools/list", "tools/call"] {
        let found = series(
            &text,
            OPERATION,
            &[("mcp_method_name", name), pipe],
            &["error_type"],
        );
        assert_eq!(found, Some(1.0), "{name}:\n{text}");
    }
    let versioned = series(
        &text,
        OPERATION,
        &[
            ("mcp_method_name", "tools/call"),
            ("gen_ai_tool_name", "add"),
            pipe,
        ],
        &[],
    );
    assert_eq!(versioned, Some(1.0), "{text}");
}
