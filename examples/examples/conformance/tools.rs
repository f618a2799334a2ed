//! The tools of the `tools-call-*` scenarios: text, an image, audio, an embedded
//! resource, mixed content, logging, progress and an error; and `test_reconnection`
//! (`server-sse-polling`).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use toolsmith::{
    Progress, ToolError, context::ClientLog, tool, tool::Audio, tool::Content,
    tool::EmbeddedResource, tool::Image,
};

use crate::media::{red_pixel, silence};

/// Returns a simple text.
#[tool(read_only, closed_world)]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".into()
}

/// Returns an image: a 1x1 red pixel.
#[tool(read_only, closed_world)]
fn test_image_content() -> Image {
    Image::png(red_pixel())
}

/// Returns an audio clip: a moment of silence.
#[tool(read_only, closed_world)]
fn test_audio_content() -> Audio {
    Audio::wav(silence())
}

/// Returns an embedded text resource.
#[tool(read_only, closed_world)]
fn test_embedded_resource() -> EmbeddedResource {
    EmbeddedResource::text(
        "test://embedded-resource",
        "This is an embedded resource content.",
    )
    .mime_type("text/plain")
}

/// Returns a text, an image and an embedded resource.
#[tool(read_only, closed_world)]
fn test_multiple_content_types() -> Vec<Content> {
    let resource = EmbeddedResource::text(
        "test://mixed-content-resource",
        r#"{"test":"data","value":123}"#,
    )
    .mime_type("application/json");
    vec![
        Content::from("Multiple content types test:"),
        Image::png(red_pixel()).into(),
        resource.into(),
    ]
}

/// Sends three log messages while it runs.
#[tool(read_only, closed_world)]
async fn test_tool_with_logging(log: ClientLog) -> String {
    log.info("Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    log.info("Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    log.info("Tool execution completed");
    "Logging test completed".into()
}

/// Reports its progress, 0, 50 and 100 of 100.
#[tool(read_only, closed_world)]
async fn test_tool_with_progress(progress: Progress) -> String {
    progress.report(0.0, 100.0, "started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    progress.report(50.0, 100.0, "halfway");
    tokio::time::sleep(Duration::from_millis(50)).await;
    progress.report(100.0, 100.0, "done");
    "Progress test completed".into()
}

/// Always fails with an error result.
#[tool(read_only, closed_world)]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Answers after a moment, on its call's event stream (`server-sse-polling`, SEP-1699).
/// With `--sessions` that stream opens with a priming event (an event id, a `retry`
/// interval, no data) that a client can resume from with `Last-Event-ID`.
// Unlike the suite's reference server, it does not close its stream mid-call: a toolsmith
// tool has no way to yet, so the answer comes on the stream the call opened (and the
// scenario's disconnect-and-resume check says so, as INFO).
#[tool(read_only, closed_world)]
async fn test_reconnection() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed: the answer came on the call's own stream, which stayed open."
        .into()
}

/// A street address; `address` is its name in a schema's `$defs`.
#[derive(Deserialize, Serialize, JsonSchema)]
#[schemars(rename = "address")]
struct Address {
    street: Option<String>,
    city: Option<String>,
}

// `json-schema-2020-12` wants this tool's input schema to say `$schema` (2020-12) and to
// keep `address` in `$defs`: `json_schema = "2020-12"` asks for exactly that (toolsmith's
// default schemas are portable: no `$schema`, named types inlined).
/// Says what it was called with.
#[tool(
    read_only,
    closed_world,
    json_schema = "2020-12",
    description = "Tool with JSON Schema 2020-12 features"
)]
fn json_schema_2020_12_tool(name: Option<String>, address: Option<Address>) -> String {
    let args = serde_json::json!({"name": name, "address": address});
    format!("JSON Schema 2020-12 tool called with: {args}")
}
