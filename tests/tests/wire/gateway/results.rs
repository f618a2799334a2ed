//! A call's result passes through the gateway untouched: every block and the structured
//! content of a success, and of an error result too (an upstream's screenshot of what
//! failed reaches the client).

use serde_json::json;
use toolsmith::Server;
use toolsmith::testing::Client;
use toolsmith::tool::{Image, ToolOutput};
use toolsmith_gateway::Upstream;

use super::served_over_http;

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

#[tokio::test]
async fn a_success_and_an_error_result_pass_through_with_every_block() {
    let upstream = served_over_http(toolsmith_tests::server_of(module_path!())).await;
    let mounted = Upstream::http("up", format!("http://{upstream}/mcp"))
        .connect()
        .await
        .unwrap();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
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
