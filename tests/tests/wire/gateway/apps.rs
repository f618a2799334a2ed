//! An MCP App through the gateway: the tool that names its `ui://` resource, and the resource
//! itself, served under the upstream's name (two upstreams' apps never share a URI); the app's
//! HTML read back through the gateway is the upstream's.

use super::through_the_gateway;
use serde_json::json;
use toolsmith::rmcp::model::{JsonObject, ResourceContents};
use toolsmith::testing::Client;
use toolsmith::tool::{ToolFuture, ToolOutput};
use toolsmith::{CallContext, Hints, Registry, Server, Tool, ToolDescription};

/// The app's page, as an MCP host renders it beside the tool's result.
const PAGE: &str = "<!doctype html><title>Sales</title><div id=chart></div>";

/// The sales chart's page.
#[toolsmith::resource(uri = "ui://chart/view.html", mime_type = "text/html;profile=mcp-app")]
fn chart_view() -> String {
    PAGE.into()
}

/// A tool rendered by the app at `ui://chart/view.html`.
struct Chart;

impl Tool for Chart {
    fn describe(&self) -> ToolDescription {
        let schema = json!({"type": "object"}).as_object().cloned().unwrap();
        let meta = json!({
            "ui": {"resourceUri": "ui://chart/view.html", "prefersBorder": true},
            "example.com/owner": "sales",
            "io.modelcontextprotocol/related-task": {"taskId": "t1"},
        });
        ToolDescription::new(
            "chart",
            "Chart this month's sales.",
            schema,
            Hints::READ_ONLY,
        )
        .with_meta(meta.as_object().cloned().unwrap())
    }

    fn call(&self, _arguments: JsonObject, _context: &CallContext) -> ToolFuture {
        Box::pin(async { Ok(ToolOutput::new().text("3 sales")) })
    }
}

fn upstream() -> Server {
    let registry = Registry::from_module(module_path!())
        .unwrap()
        .with_tool(Chart)
        .unwrap();
    Server::with_registry(registry)
}

#[tokio::test]
async fn an_app_renders_its_ui_resource_through_the_gateway() {
    let (client, _mounted) = through_the_gateway("sales", upstream()).await;
    let direct = Client::connect(upstream()).await.unwrap();

    // The tool names the app at the URI the gateway serves; its other keys pass, the
    // protocol's own do not.
    let tools = client.list_tools().await.unwrap();
    let chart = tools.iter().find(|t| t.name == "sales_chart").unwrap();
    let meta = chart.meta.as_ref().expect("the tool's _meta");
    assert_eq!(
        meta.get("ui"),
        Some(&json!({"resourceUri": "ui://sales/chart/view.html", "prefersBorder": true}))
    );
    assert_eq!(meta.get("example.com/owner"), Some(&json!("sales")));
    assert!(
        meta.get("io.modelcontextprotocol/related-task").is_none(),
        "{meta:?}"
    );

    // The page is listed there, and reads back as the upstream's, naming the URI read.
    let listed = client.list_resources().await.unwrap();
    assert!(
        listed.iter().any(|r| r.uri == "ui://sales/chart/view.html"),
        "{listed:?}"
    );
    assert!(listed.iter().all(|r| r.uri != "ui://chart/view.html"));
    let through = client
        .read_resource("ui://sales/chart/view.html")
        .await
        .unwrap();
    let from = direct.read_resource("ui://chart/view.html").await.unwrap();
    assert_eq!(through.text(), PAGE);
    assert_eq!(through.text(), from.text());
    match &through.contents()[0] {
        ResourceContents::TextResourceContents { uri, mime_type, .. } => {
            assert_eq!(uri, "ui://sales/chart/view.html");
            assert_eq!(mime_type.as_deref(), Some("text/html;profile=mcp-app"));
        }
        other => panic!("text contents: {other:?}"),
    }
    // The upstream's own URI is not the gateway's.
    assert!(client.read_resource("ui://chart/view.html").await.is_err());
    // And the tool still runs.
    assert_eq!(
        client.call("sales_chart", json!({})).await.unwrap().text(),
        "3 sales"
    );
}
