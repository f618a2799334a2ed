//! Arguments are never logged, even at `TOOLSMITH_LOG=debug`: rmcp's own targets, which log
//! every request and result whole, stay at `warn` unless named (#22 defect 4).

use std::time::Duration;

use serde_json::json;
use toolsmith_tests::http::HttpServer;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");
const SECRET: &str = "s3cr3t-argument-value";

/// Serves the fixture over HTTP on rmcp's path (the one where rmcp itself would log the
/// request) with `TOOLSMITH_LOG=spec`, makes one call carrying [`SECRET`], and returns the
/// call's answer and what the server logged.
async fn log_of_one_call(spec: &str) -> (String, String) {
    let env = [
        ("TOOLSMITH_LOG", spec),
        ("TOOLSMITH_TEST_NO_FAST_PATH", "1"),
    ];
    let server = HttpServer::start_with(FIXTURE, &[], &env).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": SECRET}}});
    let answer = server.post(&call, &[VERSION]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let logged = server.stderr.lock().unwrap().clone();
    (answer.body, logged)
}

#[tokio::test]
async fn debug_logs_carry_no_arguments_on_rmcps_path() {
    let (answer, logged) = log_of_one_call("debug").await;
    assert!(answer.contains(SECRET), "the call was answered: {answer}");
    assert!(
        logged.contains("tools/call"),
        "debug logging is on: {logged}"
    );
    assert!(!logged.contains(SECRET), "an argument was logged: {logged}");
}

#[tokio::test]
async fn naming_rmcp_turns_its_debug_logs_on() {
    let (_, logged) = log_of_one_call("debug,rmcp=debug").await;
    assert!(
        logged.contains("rmcp"),
        "rmcp's own lines, when asked for: {logged}"
    );
}
