//! `Server::http_routes`: a program's own routes beside the endpoint, made with the store
//! its tools see (`context::Store`), never in the way of a path the server answers itself.

use std::time::Duration;

use serde_json::json;
use toolsmith::axum::{Router, extract::State, routing::get};
use toolsmith::context::Store;
use toolsmith::task::TaskStore;
use toolsmith::{Registry, Server, ToolError};
use toolsmith_tests::http::{post, request};

/// Keep a word for the page beside the endpoint.
#[toolsmith::tool(destructive = false, idempotent, closed_world)]
async fn keep_routed_word(word: String, store: Store) -> Result<String, ToolError> {
    store
        .put("routes-test:word", &word, Duration::from_secs(60))
        .await
        .map_err(|err| ToolError::new(err.to_string()))?;
    Ok("kept".into())
}

#[tokio::test]
async fn a_route_reads_what_a_tool_kept_and_the_servers_own_paths_stay_its() {
    let server = Server::with_registry(Registry::from_module(module_path!()).unwrap()).http_routes(
        |serving| {
            let origin = serving.origin().to_owned();
            Router::new()
                .route(
                    "/word",
                    get(
                        |State(store): State<std::sync::Arc<dyn TaskStore>>| async move {
                            let word = store.read("routes-test:word").await.ok().flatten();
                            word.unwrap_or_else(|| "none".into())
                        },
                    ),
                )
                .route("/origin", get(move || async move { origin }))
                // The server's own path: it stays the server's.
                .route("/healthz", get(|| async { "the program's" }))
                .with_state(serving.store())
        },
    );
    let addr = format!("127.0.0.1:{}", toolsmith_tests::free_port());
    tokio::spawn(server.sessions(false).serve_http(addr.clone()));
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(&addr).await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(request(&addr, "GET", "/word", &[], "").await.body, "none");
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "keep_routed_word", "arguments": {"word": "kestrel"}}});
    let kept = post(
        &addr,
        "/mcp",
        &call,
        &[("MCP-Protocol-Version", "2025-11-25")],
    )
    .await;
    assert!(kept.body.contains("kept"), "{}", kept.body);
    assert_eq!(
        request(&addr, "GET", "/word", &[], "").await.body,
        "kestrel"
    );
    assert_eq!(
        request(&addr, "GET", "/origin", &[], "").await.body,
        format!("http://{addr}")
    );
    assert_eq!(request(&addr, "GET", "/healthz", &[], "").await.body, "ok");
    assert_eq!(request(&addr, "GET", "/nowhere", &[], "").await.status, 404);
}
