//! Each kind of content becomes the MCP block it should, bytes intact.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use super::{Audio, Content, EmbeddedResource, Image, IntoContent, ResourceLink, ToolOutput};
use crate::tool::output::{Outcome, Output};

fn blocks(value: impl IntoContent) -> (Vec<Value>, Option<Value>) {
    match value.into_outcome() {
        Outcome::Ok(Output::Content(blocks, structured)) => (
            blocks
                .iter()
                .map(|b| serde_json::to_value(b).unwrap())
                .collect(),
            structured,
        ),
        other => panic!("not content: {other:?}"),
    }
}

fn decoded(block: &Value, key: &str) -> Vec<u8> {
    STANDARD.decode(block[key].as_str().unwrap()).unwrap()
}

#[test]
fn media_go_out_base64_with_their_type() {
    let bytes: Vec<u8> = (0..=255).collect();
    let (image, _) = blocks(Image::png(bytes.clone()));
    assert_eq!(image[0]["type"], "image");
    assert_eq!(image[0]["mimeType"], "image/png");
    assert_eq!(decoded(&image[0], "data"), bytes);
    let (audio, _) = blocks(Audio::new(bytes.clone(), "audio/flac"));
    assert_eq!(audio[0]["type"], "audio");
    assert_eq!(audio[0]["mimeType"], "audio/flac");
    assert_eq!(decoded(&audio[0], "data"), bytes);
}

#[test]
fn links_and_embedded_resources_keep_their_fields() {
    let (link, _) = blocks(
        ResourceLink::new("file:///r.csv", "r.csv")
            .mime_type("text/csv")
            .description("rows"),
    );
    assert_eq!(
        link[0],
        json!({"type": "resource_link", "uri": "file:///r.csv", "name": "r.csv",
               "mimeType": "text/csv", "description": "rows"})
    );
    let (text, _) =
        blocks(EmbeddedResource::text("file:///a.md", "# A").mime_type("text/markdown"));
    assert_eq!(
        text[0],
        json!({"type": "resource", "resource": {"uri": "file:///a.md",
               "mimeType": "text/markdown", "text": "# A"}})
    );
    let (blob, _) = blocks(EmbeddedResource::blob(
        "file:///a.bin",
        vec![0, 159, 255],
        "application/x-a",
    ));
    assert_eq!(blob[0]["resource"]["mimeType"], "application/x-a");
    assert_eq!(decoded(&blob[0]["resource"], "blob"), [0, 159, 255]);
}

#[test]
fn several_blocks_keep_their_order() {
    let (list, structured) = blocks(vec![
        Content::from("first"),
        Image::gif(vec![1]).into(),
        Content::from("third".to_owned()),
        Audio::mp3(vec![2]).into(),
    ]);
    let kinds: Vec<&Value> = list.iter().map(|b| &b["type"]).collect();
    assert_eq!(kinds, ["text", "image", "text", "audio"]);
    assert_eq!(list[2]["text"], "third");
    assert_eq!(structured, None);
    let (images, _) = blocks(vec![Image::png(vec![1]), Image::jpeg(vec![2])]);
    assert_eq!(images[1]["mimeType"], "image/jpeg");
}

#[test]
fn a_tool_output_carries_blocks_and_structured_content() {
    let (list, structured) = blocks(
        ToolOutput::new()
            .text("3 rows")
            .block(Image::webp(vec![9]))
            .structured(json!({"rows": 3})),
    );
    assert_eq!(list.len(), 2);
    assert_eq!(list[1]["mimeType"], "image/webp");
    assert_eq!(structured, Some(json!({"rows": 3})));
    let failed = ToolOutput::new().structured(f64::NAN).into_outcome();
    assert!(matches!(failed, Outcome::Failed(_)), "{failed:?}");
}
