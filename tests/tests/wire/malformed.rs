//! Malformed requests get the same JSON-RPC answer over stdio and over HTTP: a known method
//! whose params do not fit it is `-32602` (not "method not found"), JSON the parser cannot
//! hold is answered with the request's id, and a UTF-8 byte order mark is skipped.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_tests::http::{HttpServer, request};
use toolsmith_tests::raw::Raw;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");

/// The bodies, each a request with id `id`, as raw text.
fn cases() -> Vec<(&'static str, String)> {
    let call = |id: u64, params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
    };
    let deep = format!("{}1{}", "[".repeat(130), "]".repeat(130));
    vec![
        ("params null", call(1, "null")),
        (
            "no params",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call"}"#.to_owned(),
        ),
        ("no name", call(3, r#"{"arguments":{}}"#)),
        ("a name that is not a string", call(4, r#"{"name":7}"#)),
        (
            "arguments that are an array",
            call(5, r#"{"name":"echo","arguments":[1]}"#),
        ),
        (
            "a duplicate name",
            call(6, r#"{"name":"echo","name":"add","arguments":{}}"#),
        ),
        (
            "a bad log level",
            r#"{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"loud"}}"#
                .to_owned(),
        ),
        (
            "a cursor that is not a string",
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":5}}"#.to_owned(),
        ),
        (
            "arguments nested too deep",
            call(
                9,
                &format!(r#"{{"name":"echo","arguments":{{"text":{deep}}}}}"#),
            ),
        ),
        (
            "a lone surrogate",
            call(10, r#"{"name":"echo","arguments":{"text":"\ud800"}}"#),
        ),
        (
            "a number out of range",
            call(11, r#"{"name":"echo","arguments":{"text":1e400}}"#),
        ),
        (
            "a byte order mark",
            format!(
                "\u{feff}{}",
                call(12, r#"{"name":"echo","arguments":{"text":"bom"}}"#)
            ),
        ),
    ]
}

/// The parts of an answer both transports must agree on.
fn gist(answer: &Value) -> Value {
    json!({
        "id": answer["id"],
        "code": answer["error"]["code"],
        "result": answer["result"]["content"][0]["text"],
    })
}

#[tokio::test]
async fn stdio_and_http_answer_malformed_requests_alike() {
    let mut stdio = Raw::program(FIXTURE, &[]);
    stdio.init().await;
    let http = HttpServer::start(FIXTURE, &[]).await;
    for (what, body) in cases() {
        stdio.line(&body).await;
        let over_stdio = stdio
            .next_within(Duration::from_secs(10))
            .await
            .unwrap_or_else(|| panic!("{what}: no answer over stdio"));
        let answer = request(
            &http.addr,
            "POST",
            &http.path,
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
            &body,
        )
        .await;
        let over_http = answer
            .messages()
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{what}: no JSON-RPC answer over HTTP: {answer:?}"));
        assert_eq!(gist(&over_stdio), gist(&over_http), "{what}: {answer:?}");
        assert!(
            over_stdio["id"].is_number(),
            "{what}: answered with its id: {over_stdio}"
        );
        if what == "a byte order mark" {
            assert_eq!(over_http["result"]["content"][0]["text"], "bom");
        } else {
            let code = over_http["error"]["code"].as_i64().unwrap();
            assert!(
                [-32602, -32700].contains(&code),
                "{what}: {code} {over_http}"
            );
            // The JSON-RPC error of a request whose params do not fit is a 200, as any
            // other; a body that is not JSON-RPC is a 400.
            let status = if code == -32602 { 200 } else { 400 };
            assert_eq!(answer.status, status, "{what}: {answer:?}");
        }
    }
}
