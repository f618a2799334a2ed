//! Rich results over real stdio: each kind of content comes back with its exact bytes, its
//! MIME type and its order; content tools have no output schema; icons are listed.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use toolsmith_tests::raw::{Raw, call};

async fn server() -> Raw {
    let mut server = Raw::program(env!("CARGO_BIN_EXE_fixture_server"), &[]);
    server.init().await;
    server
}

fn all_bytes() -> Vec<u8> {
    (0..=255).collect()
}

fn bytes(block: &Value, key: &str) -> Vec<u8> {
    STANDARD
        .decode(block[key].as_str().expect("base64 text"))
        .expect("valid base64")
}

async fn content(server: &mut Raw, id: u64, name: &str, args: Value) -> Value {
    let answer = server.ask(&call(id, name, args)).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    answer["result"].clone()
}

#[tokio::test]
async fn images_and_audio_arrive_byte_for_byte() {
    let mut server = server().await;
    let result = content(&mut server, 1, "image", json!({})).await;
    let blocks = result["content"].as_array().unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0]["type"], "image");
    assert_eq!(blocks[0]["mimeType"], "image/png");
    assert_eq!(bytes(&blocks[0], "data"), all_bytes());
    assert!(result.get("structuredContent").is_none(), "{result}");

    let result = content(&mut server, 2, "audio", json!({"refuse": false})).await;
    assert_eq!(result["content"][0]["type"], "audio");
    assert_eq!(result["content"][0]["mimeType"], "audio/wav");
    assert_eq!(bytes(&result["content"][0], "data"), all_bytes());

    let refused = server.ask(&call(3, "audio", json!({"refuse": true}))).await;
    assert_eq!(refused["result"]["isError"], true);
    assert_eq!(refused["result"]["content"][0]["text"], "No audio today.");
    let masked = server.ask(&call(4, "broken_image", json!({}))).await;
    assert_eq!(masked["result"]["isError"], true);
    assert_eq!(
        masked["result"]["content"][0]["text"],
        "Error calling tool 'broken_image'"
    );
}

#[tokio::test]
async fn links_and_embedded_resources_keep_their_fields() {
    let mut server = server().await;
    let link = content(&mut server, 1, "link", json!({})).await;
    assert_eq!(
        link["content"][0],
        json!({"type": "resource_link", "uri": "file:///tmp/report.csv", "name": "report.csv",
               "mimeType": "text/csv", "description": "The report"})
    );
    let embedded = content(&mut server, 2, "embedded", json!({})).await;
    let blocks = embedded["content"].as_array().unwrap();
    assert_eq!(
        blocks[0],
        json!({"type": "resource", "resource": {"uri": "file:///tmp/a.md",
               "mimeType": "text/markdown", "text": "# A"}})
    );
    assert_eq!(
        blocks[1]["resource"]["mimeType"],
        "application/octet-stream"
    );
    assert_eq!(bytes(&blocks[1]["resource"], "blob"), all_bytes());
}

#[tokio::test]
async fn several_blocks_keep_their_order_and_a_result_by_hand_its_structure() {
    let mut server = server().await;
    let mixed = content(&mut server, 1, "mixed", json!({})).await;
    let kinds: Vec<&Value> = mixed["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["type"])
        .collect();
    assert_eq!(kinds, ["text", "image", "audio", "resource_link", "text"]);
    assert_eq!(mixed["content"][0]["text"], "first");
    assert_eq!(mixed["content"][4]["text"], "last");
    assert_eq!(bytes(&mixed["content"][1], "data"), all_bytes());
    assert_eq!(mixed["content"][1]["mimeType"], "image/jpeg");
    assert_eq!(bytes(&mixed["content"][2], "data"), [1, 2, 3]);

    let by_hand = content(&mut server, 2, "by_hand", json!({})).await;
    assert_eq!(by_hand["content"][0]["text"], "3 rows");
    assert_eq!(by_hand["content"][1]["mimeType"], "image/gif");
    assert_eq!(by_hand["structuredContent"], json!({"rows": 3}));
}

#[tokio::test]
async fn content_tools_have_no_output_schema_and_list_their_icons() {
    let mut server = server().await;
    let list = server
        .ask(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap().clone();
    for name in [
        "image",
        "audio",
        "link",
        "embedded",
        "mixed",
        "by_hand",
        "broken_image",
    ] {
        assert!(
            tool(name).get("outputSchema").is_none(),
            "{name}: {}",
            tool(name)
        );
    }
    assert_eq!(
        tool("image")["icons"],
        json!([{"src": "https://example.com/image.png"}])
    );
    assert_eq!(
        tool("audio")["icons"],
        json!([{"src": "https://example.com/a.svg"}, {"src": "data:image/png;base64,iVBORw0KGgo="}])
    );
    assert!(tool("echo").get("icons").is_none());
}
