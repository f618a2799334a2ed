//! A call's result passes through the gateway untouched: every block, the structured
//! content and the `_meta` of a success, and of an error result too (an upstream's
//! screenshot of what failed reaches the client, a refusal stays a refusal).

use serde_json::json;
use toolsmith::testing::Client;
use toolsmith::tool::{Image, ToolOutput};

/// A PNG's first bytes: enough for a block of type image.
const PNG: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

/// A report: words, a chart and its numbers.
#[toolsmith::tool(read_only, closed_world)]
fn report() -> ToolOutput {
    ToolOutput::new()
        .text("3 rows")
        .block(Image::png(PNG.to_vec()))
        .structured(json!({"rows": 3}))
}

/// A page that did not load: what came instead, as an error result.
#[toolsmith::tool(read_only, closed_world)]
fn load_page() -> ToolOutput {
    ToolOutput::new()
        .text("the page did not load: a login wall")
        .block(Image::png(PNG.to_vec()))
        .structured(json!({"status": 401}))
        .as_error()
}

/// An answer that says which trace it was, and a protocol key that is the upstream's hop's.
#[toolsmith::tool(read_only, closed_world)]
fn traced() -> ToolOutput {
    let mut meta = toolsmith::rmcp::model::MetaObject::new();
    meta.insert("example.com/trace".into(), "abc123".into());
    meta.insert(
        "io.modelcontextprotocol/related-task".into(),
        json!({"taskId": "t1"}),
    );
    ToolOutput::new().text("42").meta(meta)
}

/// A tool the upstream holds back: its own refusal.
#[toolsmith::tool(read_only, closed_world)]
fn held() -> Result<String, toolsmith::ToolError> {
    Err(toolsmith::ToolError::refused("held back for review"))
}

/// A client of a gateway in front of this module's tools, served over HTTP as `up`.
async fn through_the_gateway() -> (Client, toolsmith_gateway::Mounted) {
    super::through_the_gateway("up", toolsmith_tests::server_of(module_path!())).await
}

#[tokio::test]
async fn a_success_and_an_error_result_pass_through_with_every_block() {
    let (client, _mounted) = through_the_gateway().await;
    let direct = Client::connect(toolsmith_tests::server_of(module_path!()))
        .await
        .unwrap();
    for (tool, error) in [("report", false), ("load_page", true)] {
        let through = client
            .call_raw(&format!("up_{tool}"), json!({}))
            .await
            .unwrap();
        let from = direct.call_raw(tool, json!({})).await.unwrap();
        assert_eq!(through.is_error(), error, "{tool}");
        assert_eq!(through.content(), from.content(), "{tool}: every block");
        assert_eq!(through.content().len(), 2);
        assert_eq!(
            through.content()[1].as_image().unwrap().mime_type,
            "image/png"
        );
        assert_eq!(through.structured(), from.structured(), "{tool}");
        assert!(through.structured().is_some());
    }
}

#[tokio::test]
async fn a_results_meta_and_an_errors_kind_pass_through() {
    let (client, _mounted) = through_the_gateway().await;
    let traced = client.call("up_traced", json!({})).await.unwrap();
    let meta = traced.result().meta.as_ref().expect("the upstream's _meta");
    assert_eq!(meta.get("example.com/trace"), Some(&json!("abc123")));
    assert!(
        meta.get("io.modelcontextprotocol/related-task").is_none(),
        "the protocol's own keys are each hop's: {meta:?}"
    );
    // The upstream's refusal is a refusal at the client, not a plain tool error.
    let held = client.call_raw("up_held", json!({})).await.unwrap();
    assert!(held.is_error());
    assert_eq!(
        held.error_kind(),
        Some(toolsmith::error::ErrorKind::Refused)
    );
    assert_eq!(held.text(), "held back for review");
}
