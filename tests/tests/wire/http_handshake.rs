//! A stateless HTTP server answers what needs no state itself (`initialize`, `ping`,
//! notifications) exactly as rmcp's per-request service does: status, headers and body,
//! for every revision asked for, and leaves whatever is unusual to rmcp.

use serde_json::{Value, json};
use toolsmith_tests::http::HttpServer;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");

fn initialize(id: Value, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {"sampling": {}},
        "clientInfo": {"name": "handshake-test", "version": "1.0"}}})
}

/// A request, the headers it is sent with, and whether the fast path answers it.
type Step = (Value, Vec<(&'static str, &'static str)>, bool);

fn script() -> Vec<Step> {
    let v2025 = ("MCP-Protocol-Version", "2025-11-25");
    let mut script = Vec::new();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        script.push((initialize(json!(1), version), vec![], true));
    }
    script.extend([
        // Asked for again: the cached answer.
        (initialize(json!("again"), "2024-11-05"), vec![], true),
        // Revisions it cannot agree to: the server's own fallback.
        (initialize(json!(2), "1999-01-01"), vec![], true),
        (initialize(json!(3), "2026-07-28"), vec![], true),
        // A header that says the revision asked for; one that does not (rmcp refuses).
        (initialize(json!(4), "2025-11-25"), vec![v2025], true),
        (initialize(json!(5), "2025-06-18"), vec![v2025], false),
        // Malformed: no client info.
        (
            json!({"jsonrpc": "2.0", "id": 6, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}),
            vec![],
            false,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
            vec![v2025],
            true,
        ),
        (
            json!({"jsonrpc": "2.0", "id": "p", "method": "ping", "params": {}}),
            vec![],
            true,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {"_meta": {"k": 1}}}),
            vec![],
            false,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            vec![],
            true,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 3, "reason": "gone"}}),
            vec![v2025],
            true,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": 1, "progress": 1, "_meta": {}}}),
            vec![],
            false,
        ),
    ]);
    script
}

#[tokio::test]
async fn the_fast_path_shakes_hands_exactly_as_rmcp_does() {
    let env = [("TOOLSMITH_LOG", "info,toolsmith=debug")];
    let fast = HttpServer::start_with(FIXTURE, &[], &env).await;
    let rmcp = HttpServer::start_with(FIXTURE, &[], &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")]).await;
    let answered = || {
        let logged = fast.stderr.lock().unwrap().clone();
        logged.matches("answered without a service").count()
    };
    let mut expected = 0;
    for (request, headers, fast_path) in script() {
        let a = fast.post(&request, &headers).await;
        let b = rmcp.post(&request, &headers).await;
        assert_eq!(a.status, b.status, "{request}");
        for name in ["content-type", "mcp-session-id", "content-length"] {
            assert_eq!(a.header(name), b.header(name), "{name} of {request}");
        }
        assert_eq!(a.messages(), b.messages(), "{request}");
        match request.get("id") {
            Some(_) => assert_eq!(a.messages().len(), 1, "{request}"),
            None => assert_eq!((a.status, a.body.as_str()), (202, ""), "{request}"),
        }
        // The log line comes after the answer: give it a moment.
        expected += usize::from(fast_path);
        for _ in 0..50 {
            if answered() >= expected {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert_eq!(
            answered(),
            expected,
            "fast path taken for {request}: {fast_path}"
        );
    }
    // The anchors: what the handshake agreed on.
    let agreed = |version: &str| {
        let fast = &fast;
        let request = initialize(json!(9), version);
        async move { fast.post(&request, &[]).await.messages()[0]["result"]["protocolVersion"].clone() }
    };
    assert_eq!(agreed("2024-11-05").await, "2024-11-05");
    assert_eq!(agreed("1999-01-01").await, "2025-11-25");
}
