//! A call's log messages reach its client on the call's own response, before its result,
//! whenever the client takes event streams: stateless (on the fast path and rmcp's, JSON
//! answers and `--sse-responses`) and in a session (not on the session's shared stream).
//! A resource read's do too.

use serde_json::{Value, json};
use toolsmith_tests::http::{HttpServer, Response, post};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// The methods of the response's messages in order (`(result)` for the answer), and the
/// levels of its log messages.
fn shape(answer: &Response) -> (Vec<String>, Vec<String>) {
    let messages = answer.messages();
    let methods = messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(result)").to_owned())
        .collect();
    let levels = messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| m["params"]["level"].as_str().unwrap_or("").to_owned())
        .collect();
    (methods, levels)
}

fn is_stream(answer: &Response) -> bool {
    answer
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/event-stream"))
}

#[tokio::test]
async fn a_stateless_calls_log_messages_come_before_its_result() {
    for args in [vec![], vec!["--sse-responses"]] {
        for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
            let server = HttpServer::start_with(FIXTURE, &args, &env).await;
            let what = format!("{args:?} {env:?}");
            let answer = server
                .post(&call(1, "steps", json!({"steps": 1})), &[VERSION])
                .await;
            assert_eq!(answer.status, 200, "{what}: {answer:?}");
            assert!(is_stream(&answer), "{what}: {answer:?}");
            let (methods, levels) = shape(&answer);
            assert_eq!(
                methods.last().map(String::as_str),
                Some("(result)"),
                "{what}"
            );
            assert!(
                methods[..methods.len() - 1]
                    .iter()
                    .all(|m| m == "notifications/message"),
                "{what}: {methods:?}"
            );
            for level in ["info", "warning", "error"] {
                assert!(levels.iter().any(|l| l == level), "{what}: {levels:?}");
            }
            // A call that logs nothing keeps its plain JSON answer.
            let plain = server
                .post(&call(2, "echo", json!({"text": "hi"})), &[VERSION])
                .await;
            assert_eq!(is_stream(&plain), !args.is_empty(), "{what}: {plain:?}");
            assert_eq!(shape(&plain).0, ["(result)"], "{what}: {plain:?}");
        }
    }
}

#[tokio::test]
async fn a_reads_log_messages_come_before_its_contents() {
    for args in [vec![], vec!["--sse-responses"]] {
        let server = HttpServer::start(FIXTURE, &args).await;
        let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
            "params": {"uri": "fixture://chatty"}});
        let answer = server.post(&read, &[VERSION]).await;
        assert!(is_stream(&answer), "{args:?}: {answer:?}");
        let (methods, levels) = shape(&answer);
        assert_eq!(methods, ["notifications/message", "(result)"], "{args:?}");
        assert_eq!(levels, ["info"], "{args:?}");
        let contents = &answer.messages()[1]["result"]["contents"][0]["text"];
        assert_eq!(contents, "said", "{args:?}");
    }
}

#[tokio::test]
async fn a_session_calls_log_messages_follow_its_own_stream() {
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let init = server
        .post(&toolsmith_tests::initialize(1, "2025-11-25"), &[])
        .await;
    let session = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let with = [VERSION, ("Mcp-Session-Id", session.as_str())];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(server.post(&initialized, &with).await.status, 202);
    let answer = post(
        &server.addr,
        &server.path,
        &call(2, "steps", json!({"steps": 1})),
        &with,
    )
    .await;
    assert!(is_stream(&answer), "{answer:?}");
    let (methods, levels) = shape(&answer);
    assert_eq!(
        methods.last().map(String::as_str),
        Some("(result)"),
        "{methods:?}"
    );
    for level in ["info", "warning", "error"] {
        assert!(levels.iter().any(|l| l == level), "{levels:?}");
    }
}
