//! Sessions the fast path opens (`--sessions`): an `initialize` makes a map entry, not a
//! service; the session's calls, first pages, pings and notifications are answered on the
//! fast path, exactly as rmcp answers them in a session it opened; the first request the
//! fast path does not answer (here `logging/setLevel`, a `GET` stream) moves the session to
//! rmcp's service under the same id, with the same handler (the level set there holds for
//! the calls after it); `DELETE` ends it (204, then 404); `notifications/cancelled` and the
//! session's end stop its calls.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_tests::asking::open_session;
use toolsmith_tests::http::{HttpServer, Response, request};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// What a session's answers say, the session's id aside: each message, and the status.
fn seen(answer: &Response) -> (u16, Vec<Value>) {
    (answer.status, answer.messages())
}

/// One session's script, run against `server`; what each step answered.
async fn script(server: &HttpServer) -> Vec<(u16, Vec<Value>)> {
    let mut seen_all = Vec::new();
    let init = server
        .post(&toolsmith_tests::initialize(1, "2025-11-25"), &[])
        .await;
    let session = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    assert_eq!(
        init.header("content-type"),
        Some("text/event-stream"),
        "{init:?}"
    );
    seen_all.push(seen(&init));
    let with = [VERSION, ("Mcp-Session-Id", session.as_str())];
    let steps = [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        call(3, "add", json!({"a": 2, "b": 3})),
        call(4, "steps", json!({"steps": 0})),
        json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
        call(6, "failing", json!({})),
        call(7, "no_such_tool", json!({})),
        // Not the fast path's: the session moves to rmcp's service, keeping its handler.
        json!({"jsonrpc": "2.0", "id": 8, "method": "logging/setLevel",
            "params": {"level": "error"}}),
        // Only the error message now.
        call(9, "steps", json!({"steps": 0})),
        call(10, "add", json!({"a": 1, "b": 1})),
    ];
    for step in steps {
        let answer = server.post(&step, &with).await;
        seen_all.push(seen(&answer));
    }
    // A revision rmcp does not know: its 400, and the session stays.
    let odd = [("MCP-Protocol-Version", "1999-01-01"), with[1]];
    let refused = request(&server.addr, "DELETE", &server.path, &odd, "").await;
    seen_all.push((refused.status, Vec::new()));
    let gone = request(&server.addr, "DELETE", &server.path, &with, "").await;
    seen_all.push(seen(&gone));
    let after = server
        .post(&call(11, "add", json!({"a": 1, "b": 1})), &with)
        .await;
    seen_all.push((after.status, Vec::new()));
    seen_all
}

#[tokio::test]
async fn a_session_the_fast_path_opened_answers_as_rmcps_own() {
    let env = [("TOOLSMITH_LOG", "info,toolsmith=debug")];
    let fast = HttpServer::start_with(FIXTURE, &["--sessions"], &env).await;
    let rmcp = HttpServer::start_with(
        FIXTURE,
        &["--sessions"],
        &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")],
    )
    .await;
    let (a, b) = (script(&fast).await, script(&rmcp).await);
    assert_eq!(a.len(), b.len());
    for (step, (a, b)) in a.iter().zip(&b).enumerate() {
        assert_eq!(a, b, "step {step}");
    }
    // The level set in rmcp's service held for the call after it: one log message, the
    // error (before it: info, warning and error).
    let logs = |messages: &[Value]| {
        messages
            .iter()
            .filter(|m| m["method"] == "notifications/message")
            .count()
    };
    assert_eq!((logs(&a[4].1), logs(&a[9].1)), (3, 1), "{a:?}");
    assert_eq!(
        (a[11].0, a[12].0, a[13].0),
        (400, 204, 404),
        "an unknown revision's DELETE refused; DELETE; then the session is gone"
    );
    // The session opened, and its calls ran, without a service; it moved to rmcp's once.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let logged = fast.stderr.lock().unwrap().clone();
    assert_eq!(
        logged.matches("a session opened without a service").count(),
        1,
        "{logged}"
    );
    assert_eq!(
        logged.matches("a session moves to rmcp's service").count(),
        1,
        "{logged}"
    );
}

async fn cancellations(server: &HttpServer, session: &str) -> u64 {
    let with = [VERSION, ("Mcp-Session-Id", session)];
    let answer = server
        .post(&call(90, "cancellations", json!({})), &with)
        .await;
    let message = answer
        .messages()
        .into_iter()
        .find(|m| m.get("result").is_some())
        .expect("an answer");
    message["result"]["structuredContent"]["result"]
        .as_u64()
        .unwrap_or_else(|| panic!("{message}"))
}

#[tokio::test]
async fn cancelling_or_ending_a_session_stops_its_calls() {
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let session = open_session(&server, json!({})).await;
    let with = [VERSION, ("Mcp-Session-Id", session.as_str())];
    let before = cancellations(&server, &session).await;
    // A call the client cancels stops, and answers.
    let slow_call = call(2, "slow", json!({"ms": 20_000}));
    let slow = server.post(&slow_call, &with);
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 2, "reason": "changed my mind"}});
        server.post(&cancelled, &with).await
    };
    let started = std::time::Instant::now();
    let (_answer, accepted) = tokio::join!(slow, cancel);
    assert_eq!(accepted.status, 202);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(cancellations(&server, &session).await, before + 1);
    // A call still running when its session ends stops too.
    let other = open_session(&server, json!({})).await;
    let with_other = [VERSION, ("Mcp-Session-Id", other.as_str())];
    // (Not a DELETE of a revision rmcp does not know: its 400, and the session stays.)
    let odd = [("MCP-Protocol-Version", "1999-01-01"), with_other[1]];
    let refused = request(&server.addr, "DELETE", &server.path, &odd, "").await;
    assert_eq!(refused.status, 400, "{refused:?}");
    let still = server
        .post(&call(4, "add", json!({"a": 1, "b": 2})), &with_other)
        .await;
    assert_eq!(still.status, 200, "{still:?}");
    let slow_call = call(3, "slow", json!({"ms": 20_000}));
    let slow = server.post(&slow_call, &with_other);
    let end = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        request(&server.addr, "DELETE", &server.path, &with_other, "").await
    };
    let started = std::time::Instant::now();
    let (_answer, ended) = tokio::join!(slow, end);
    assert_eq!(ended.status, 204);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(cancellations(&server, &session).await, before + 2);
}

#[tokio::test]
async fn a_get_stream_moves_the_session_to_rmcp() {
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let session = open_session(&server, json!({})).await;
    let with = [
        VERSION,
        ("Mcp-Session-Id", session.as_str()),
        ("Accept", "text/event-stream"),
    ];
    // The stream stays open: read its head only.
    let head = tokio::time::timeout(
        Duration::from_secs(5),
        toolsmith_tests::http::head(&server.addr, "GET", &server.path, &with),
    )
    .await
    .expect("the stream answers");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("text/event-stream"),
        "{head}"
    );
    // Still the same session, now rmcp's.
    let answer = server
        .post(&call(2, "add", json!({"a": 2, "b": 2})), &with[..2])
        .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let delete = request(&server.addr, "DELETE", &server.path, &with[..2], "").await;
    assert_eq!(delete.status, 204);
}

/// Requests that reach rmcp while it restores the session wait for it: none reaches the
/// session ahead of its replayed handshake (which would end the session).
#[tokio::test]
async fn requests_racing_the_move_to_rmcp_wait_for_it() {
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    for _ in 0..10 {
        let session = open_session(&server, json!({})).await;
        let with = [VERSION, ("Mcp-Session-Id", session.as_str())];
        let level = |id: u64| {
            json!({"jsonrpc": "2.0", "id": id, "method": "logging/setLevel",
                "params": {"level": "warning"}})
        };
        let (first, second, third) = (level(2), level(3), level(4));
        let (a, b, c) = tokio::join!(
            server.post(&first, &with),
            server.post(&second, &with),
            server.post(&third, &with)
        );
        for answer in [a, b, c] {
            assert_eq!(answer.status, 200, "{answer:?}");
            assert!(
                answer.messages().iter().any(|m| m.get("result").is_some()),
                "{answer:?}"
            );
        }
        let gone = request(&server.addr, "DELETE", &server.path, &with, "").await;
        assert_eq!(gone.status, 204);
    }
}
