//! The result cache of read-only idempotent tools.

use serde_json::json;
use toolsmith::testing::Client;
use toolsmith::{Hints, Server, ToolDescription};
use toolsmith_gateway::Upstream;

use super::served_over_http;

/// A tool that answers how many times it ran, with the hints it is given.
struct Counter(
    &'static str,
    Hints,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
);

impl toolsmith::Tool for Counter {
    fn describe(&self) -> ToolDescription {
        let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}})
            .as_object()
            .cloned()
            .unwrap();
        ToolDescription::new(self.0, "Say how many times this tool ran.", schema, self.1)
    }
    fn call(
        &self,
        _: toolsmith::rmcp::model::JsonObject,
        _: &toolsmith::CallContext,
    ) -> toolsmith::tool::ToolFuture {
        let runs = self.2.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        Box::pin(async move { Ok(toolsmith::tool::ToolOutput::new().text(format!("run {runs}"))) })
    }
}

#[tokio::test]
async fn a_read_only_idempotent_answer_is_kept_for_its_ttl_and_nothing_else_is() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (lookups, ticks) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let upstream = Server::with_registry(
        toolsmith::Registry::new()
            .with_tool(Counter(
                "lookup",
                Hints::READ_ONLY.closed_world(),
                lookups.clone(),
            ))
            .unwrap()
            // Read-only but not idempotent (a clock, a random pick): never kept.
            .with_tool(Counter(
                "tick",
                Hints {
                    idempotent: false,
                    ..Hints::READ_ONLY
                },
                ticks.clone(),
            ))
            .unwrap(),
    );
    let addr = served_over_http(upstream).await;
    let mounted = Upstream::http("up", format!("http://{addr}/mcp"))
        .cache(std::time::Duration::from_millis(400))
        .connect()
        .await
        .unwrap();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
    let call = |tool: &'static str, q: &'static str| {
        let client = &client;
        async move { client.call(tool, json!({"q": q})).await.unwrap().text() }
    };
    assert_eq!(call("up_lookup", "a").await, "run 1");
    assert_eq!(
        call("up_lookup", "a").await,
        "run 1",
        "the same question: kept"
    );
    assert_eq!(call("up_lookup", "b").await, "run 2", "another question");
    assert_eq!(lookups.load(Ordering::SeqCst), 2);
    assert_eq!(call("up_tick", "a").await, "run 1");
    assert_eq!(
        call("up_tick", "a").await,
        "run 2",
        "not idempotent: never kept"
    );
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(
        call("up_lookup", "a").await,
        "run 3",
        "expired: asked again"
    );
}
