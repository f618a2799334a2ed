//! Only the MCP endpoint, at its exact path, reaches anything MCP: a `tools/call` POSTed to
//! any other path runs nothing and gets that path's own answer (404, or 405 on `/healthz`),
//! on the fast path and on rmcp's alike.

use serde_json::{Value, json};
use toolsmith_tests::http::{HttpServer, post};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

fn count(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "count", "arguments": {}}})
}

#[tokio::test]
async fn a_tool_runs_only_at_the_endpoint() {
    for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
        let server = HttpServer::start_with(FIXTURE, &[], &env).await;
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        for (path, status) in [
            ("/healthz", 405),
            ("/", 404),
            ("/mcp/extra", 404),
            ("/MCP", 404),
            ("/mcp/", 404),
            ("/.well-known/oauth-protected-resource", 404),
        ] {
            for body in [count(1), list.clone()] {
                let answer = post(&server.addr, path, &body, &[VERSION]).await;
                assert_eq!(answer.status, status, "{env:?} {path}: {answer:?}");
                assert!(
                    !answer.body.contains("jsonrpc"),
                    "{env:?} {path}: {answer:?}"
                );
            }
        }
        // Nothing ran: the first call the endpoint answers is the first call of `count`.
        let counted = server.post(&count(3), &[VERSION]).await;
        let messages = counted.messages();
        let result = &messages.last().expect("an answer")["result"];
        assert_eq!(
            result["structuredContent"]["result"], 1,
            "{env:?}: {result}"
        );
    }
}
