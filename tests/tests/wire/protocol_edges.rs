//! Protocol edges over real stdio, found by review and by hostile input: every request gets
//! exactly one answer of the right kind, nothing else does, and the server keeps serving.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolsmith_tests::raw::{Raw, call};

fn fixture(env: &[(&str, &str)]) -> Raw {
    Raw::program(env!("CARGO_BIN_EXE_fixture_server"), env)
}

fn code(frame: &Value) -> i64 {
    frame["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error: {frame}"))
}

fn result_value(frame: &Value) -> &Value {
    &frame["result"]["structuredContent"]["result"]
}

#[tokio::test]
async fn notifications_and_responses_before_initialize_are_ignored() {
    let mut server = fixture(&[]);
    server
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 99, "result": {}}))
        .await;
    server
        .send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": 1}}),
        )
        .await;
    server.init().await;
    let answer = server.ask(&call(1, "add", json!({"a": 1, "b": 2}))).await;
    assert_eq!(result_value(&answer), 3, "{answer}");
}

#[tokio::test]
async fn an_unknown_method_before_the_handshake_is_method_not_found() {
    let mut server = fixture(&[]);
    let answer = server
        .ask(&json!({"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}))
        .await;
    assert_eq!(code(&answer), -32601, "{answer}");
    server.init().await;
    let answer = server.ask(&call(2, "echo", json!({"text": "hi"}))).await;
    assert_eq!(answer["result"]["content"][0]["text"], "hi");
}

#[tokio::test]
async fn ids_that_are_not_strings_or_integers_get_invalid_request_with_a_null_id() {
    let mut server = fixture(&[]);
    server.init().await;
    for id in ["1.5", "9223372036854775808", "null", "true", "{}", "[]"] {
        server
            .line(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}}}}}}"#
            ))
            .await;
        let frame = server.next_within(Duration::from_secs(10)).await;
        let frame = frame.unwrap_or_else(|| panic!("id {id}: no answer"));
        assert_eq!(
            (code(&frame), &frame["id"]),
            (-32600, &Value::Null),
            "id {id}: {frame}"
        );
    }
    let answer = server.ask(&call(7, "add", json!({"a": 1, "b": 1}))).await;
    assert_eq!(result_value(&answer), 2, "still serving");
}

#[tokio::test]
async fn a_call_with_a_result_or_error_member_is_invalid_and_never_runs() {
    for env in [&[][..], &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")][..]] {
        let mut server = fixture(env);
        server.init().await;
        for extra in [
            json!({"result": {}}),
            json!({"error": {"code": 1, "message": "x"}}),
        ] {
            let mut request = call(1, "count", json!({}));
            request
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let answer = server.ask(&request).await;
            assert_eq!(code(&answer), -32600, "{env:?}: {answer}");
        }
        let answer = server.ask(&call(2, "count", json!({}))).await;
        assert_eq!(
            result_value(&answer),
            1,
            "{env:?}: the invalid calls never ran"
        );
    }
}

#[tokio::test]
async fn a_session_started_statelessly_refuses_a_late_initialize_and_stays_per_request() {
    let mut server = fixture(&[]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    let stateless = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta}});
    assert_eq!(result_value(&server.ask(&stateless).await), 3);
    let late = server
        .ask(&toolsmith_tests::initialize(2, "2025-11-25"))
        .await;
    assert_eq!(code(&late), -32600, "{late}");
    let message = late["error"]["message"].as_str().unwrap();
    assert!(message.contains("per-request"), "{message}");
    // Without `_meta`, rmcp refuses the call in this session; so must every path.
    let plain = server.ask(&call(3, "count", json!({}))).await;
    let ping = server
        .ask(&json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}))
        .await;
    assert_eq!(code(&plain), code(&ping), "call: {plain}\nping: {ping}");
    assert_eq!(code(&plain), -32602, "{plain}");
    // With it, calls go on as before.
    let mut again = stateless.clone();
    again["id"] = json!(5);
    assert_eq!(result_value(&server.ask(&again).await), 3);
}

#[tokio::test]
async fn json_past_the_parsers_limits_is_answered_with_its_id() {
    let mut server = fixture(&[]);
    server.init().await;
    let deep = format!("{}1{}", "[".repeat(130), "]".repeat(130));
    for (id, arguments) in [
        (1, format!(r#"{{"text":{deep}}}"#)),
        (2, r#"{"text":"\ud800"}"#.to_owned()),
        (3, r#"{"text":1e400}"#.to_owned()),
    ] {
        server
            .line(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{arguments}}}}}"#
            ))
            .await;
        let frame = server.next_within(Duration::from_secs(10)).await.unwrap();
        assert_eq!(
            (code(&frame), frame["id"].clone()),
            (-32602, json!(id)),
            "{frame}"
        );
    }
    let answer = server.ask(&call(4, "echo", json!({"text": "hi"}))).await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "hi",
        "still serving"
    );
}

#[tokio::test]
async fn params_of_the_wrong_shape_are_invalid_params() {
    let mut server = fixture(&[]);
    server.init().await;
    for (id, request) in [
        (
            1,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": []}),
        ),
        (
            2,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ["add"]}),
        ),
        (
            3,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": 5}}),
        ),
        (
            4,
            json!({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": "x"}),
        ),
    ] {
        let answer = server.ask(&request).await;
        assert_eq!(
            (code(&answer), answer["id"].clone()),
            (-32602, json!(id)),
            "{answer}"
        );
    }
}

#[tokio::test]
async fn integers_written_as_floats_are_integers() {
    let mut server = fixture(&[]);
    server.init().await;
    server
        .line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1.0,"b":1e3}}}"#)
        .await;
    let (_, answer) = server.until(&json!(1)).await;
    assert_eq!(result_value(&answer), 1001, "{answer}");
    let answer = server.ask(&call(2, "add", json!({"a": 1.5, "b": 1}))).await;
    assert_eq!(
        answer["result"]["isError"], true,
        "a fraction is no integer: {answer}"
    );
}

#[tokio::test]
async fn a_result_json_cannot_carry_is_a_masked_failure() {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_server"));
    command.env("TOOLSMITH_LOG", "error");
    let mut server = Raw::spawn(command, std::process::Stdio::piped());
    server.init().await;
    let answer = server.ask(&call(1, "overflow", json!({}))).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "Error calling tool 'overflow'"
    );
    assert!(
        answer["result"].get("structuredContent").is_none(),
        "{answer}"
    );
    server.close();
    let output = tokio::time::timeout(Duration::from_secs(10), server.child.wait_with_output())
        .await
        .expect("the server ends")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("inf") && stderr.contains("JSON"),
        "the reason is logged: {stderr}"
    );
}

#[tokio::test]
async fn a_timeout_caps_the_answer_and_nothing_follows_it() {
    let mut server = fixture(&[]);
    server.init().await;
    let mut request = call(1, "timed_progress", json!({}));
    request["params"]["_meta"] = json!({"progressToken": "p"});
    let start = Instant::now();
    server.send(&request).await;
    let (before, answer) = server.until(&json!(1)).await;
    let took = start.elapsed();
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("timed out")
    );
    assert!(!before.is_empty(), "progress came before the answer");
    assert!(
        took < Duration::from_millis(900),
        "answered at its timeout, not later: {took:?}"
    );
    // Its thread goes on reporting for a while: none of it may follow the answer.
    let after = server.next_within(Duration::from_millis(300)).await;
    assert_eq!(after, None, "nothing after the answer");
}

#[tokio::test]
async fn a_client_log_kept_past_the_call_neither_delays_nor_follows_the_answer() {
    let mut server = fixture(&[]);
    server.init().await;
    let start = Instant::now();
    for id in 1..=3 {
        let answer = server.ask(&call(id, "log_later", json!({"ms": 200}))).await;
        assert_eq!(result_value(&answer), true);
    }
    assert!(
        start.elapsed() < Duration::from_millis(900),
        "{:?}",
        start.elapsed()
    );
    let after = server.next_within(Duration::from_millis(500)).await;
    assert_eq!(
        after, None,
        "a message sent after its call ended is dropped"
    );
}

#[tokio::test]
async fn an_async_tool_that_blocks_holds_up_reading_once_at_most() {
    let mut server = fixture(&[]);
    server.init().await;
    // The first call blocks the reader: its tool is marked.
    let answer = server
        .ask(&call(1, "block_async", json!({"ms": 300})))
        .await;
    assert_eq!(result_value(&answer), 300);
    // The next one runs in a task: a quick call sent after it is answered first.
    server
        .send(&call(2, "block_async", json!({"ms": 500})))
        .await;
    server
        .send(&call(3, "echo", json!({"text": "quick"})))
        .await;
    let first = server.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(first["id"], 3, "{first}");
    let (_, second) = server.until(&json!(2)).await;
    assert_eq!(result_value(&second), 500);
}

#[tokio::test]
async fn a_probe_or_a_refused_inline_request_leaves_the_session_undecided() {
    let mut server = fixture(&[]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}});
    // A discovery probe, answered by rmcp, which stays open to either lifecycle.
    let probe = server
        .ask(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                     "params": {"_meta": meta}}),
        )
        .await;
    assert!(probe.get("result").is_some() || probe.get("error").is_some());
    // A per-request call lacking required metadata: refused, and nothing starts.
    let refused = server
        .ask(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta":
             {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
        )
        .await;
    assert_eq!(code(&refused), -32602, "{refused}");
    // Still before any session: a notification is ignored, and a handshake works.
    server
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    server.init().await;
    let answer = server.ask(&call(3, "add", json!({"a": 2, "b": 2}))).await;
    assert_eq!(result_value(&answer), 4, "{answer}");
}
