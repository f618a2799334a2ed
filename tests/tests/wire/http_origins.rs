//! An origin added without a port allows that origin at its scheme's default port only;
//! `:*` allows any port (#22 defect 5).

use serde_json::json;
use toolsmith_tests::http::HttpServer;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

#[tokio::test]
async fn an_added_origin_without_a_port_is_not_every_port() {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let server = HttpServer::start(FIXTURE, &["--allowed-origin", "https://app.example.com"]).await;
    for (origin, status) in [
        ("https://app.example.com", 200),
        ("https://app.example.com:443", 200),
        ("https://app.example.com:8443", 403),
        ("http://app.example.com", 403),
    ] {
        let answer = server.post(&list, &[VERSION, ("Origin", origin)]).await;
        assert_eq!(answer.status, status, "{origin}: {answer:?}");
    }
    let any_port =
        HttpServer::start(FIXTURE, &["--allowed-origin", "https://app.example.com:*"]).await;
    let answer = any_port
        .post(
            &list,
            &[VERSION, ("Origin", "https://app.example.com:8443")],
        )
        .await;
    assert_eq!(answer.status, 200, "{answer:?}");
}
