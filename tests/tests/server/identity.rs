//! What a server says of itself: its name, version and `instructions`, in the `initialize`
//! result (up to 2025-11-25) and in `server/discover` (2026-07-28).

use serde_json::json;
use toolsmith::testing::Client;
use toolsmith::{Registry, Server};

use super::dynamic::{modern, post, serve_http};

const SAID: &str = "Search notes before creating one; delete only what the user names.";

fn server() -> Server {
    Server::with_registry(Registry::new())
        .info("notes", "2.1.0")
        .instructions(SAID)
}

#[tokio::test]
async fn instructions_reach_initialize_and_discover() {
    let client = Client::connect(server()).await.unwrap();
    assert_eq!(client.instructions(), Some(SAID));
    let quiet = Client::connect(Server::with_registry(Registry::new()))
        .await
        .unwrap();
    assert_eq!(quiet.instructions(), None, "none unless given");

    let addr = serve_http(server()).await;
    let discover = modern(1, "server/discover", json!({}));
    let answer = post(&addr, &discover, "server/discover").await;
    assert_eq!(answer["result"]["instructions"], SAID, "{answer}");
    let info = &answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(info["name"], "notes", "{answer}");
}
