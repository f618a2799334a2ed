//! The fixture tools of the MCP conformance suite's server scenarios, written with
//! `#[tool]` as a user would: `interop/run` serves them (`serve --http ... --sessions`) to
//! `@modelcontextprotocol/conformance`: the tools of the `tools-call-*` scenarios (text,
//! image, audio, an embedded resource, mixed content, logging, progress, an error), and the
//! tools that ask the client during the call (`tools-call-elicitation`,
//! `elicitation-sep1034-defaults`, `elicitation-sep1330-enums`, `tools-call-sampling`).
//! (The resources, prompts and completions of the suite come with issue [5/8].)
//!
//! `cargo run -p toolsmith-examples --example conformance -- serve --http 127.0.0.1:8000 --sessions`

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;
use toolsmith::rmcp::model::ElicitationSchema;

use toolsmith::{
    Audio, ClientLog, Content, Elicit, Elicitation, EmbeddedResource, Image, Progress, Sample,
    ToolError, tool,
};

/// Returns a simple text.
#[tool(read_only, closed_world)]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".into()
}

/// A 1x1 red pixel, as a PNG.
fn red_pixel() -> Vec<u8> {
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, 1, 1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    if let Ok(mut writer) = encoder.write_header() {
        let _ = writer.write_image_data(&[255, 0, 0]);
    }
    png
}

/// Returns an image: a 1x1 red pixel.
#[tool(read_only, closed_world)]
fn test_image_content() -> Image {
    Image::png(red_pixel())
}

/// Eight samples of silence as a WAV file (8 kHz, 8-bit mono).
fn silence() -> Vec<u8> {
    let samples = [128u8; 8];
    let mut wav = Vec::with_capacity(44 + samples.len());
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // the format block's size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes()); // samples per second
    wav.extend_from_slice(&8000u32.to_le_bytes()); // bytes per second
    wav.extend_from_slice(&1u16.to_le_bytes()); // bytes per frame
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
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

/// What the user is asked for in `test_elicitation`.
#[derive(Deserialize, Serialize, JsonSchema)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

fn said<T: Serialize>(answer: &Elicitation<T>) -> String {
    match answer {
        Elicitation::Accept(content) => format!(
            "action=accept, content={}",
            serde_json::to_string(content).unwrap_or_default()
        ),
        Elicitation::Decline => "action=decline".to_owned(),
        Elicitation::Cancel => "action=cancel".to_owned(),
    }
}

fn failed(err: toolsmith::AskError) -> ToolError {
    ToolError::new(err.to_string())
}

/// Asks the user for a name and an e-mail address, and says what they answered.
///
/// # Arguments
/// * `message` - The question to ask.
#[tool(read_only, closed_world)]
async fn test_elicitation(message: String, elicit: Elicit) -> Result<String, ToolError> {
    let answer = elicit.ask::<UserInfo>(message).await.map_err(failed)?;
    Ok(format!("User response: {}", said(&answer)))
}

fn john_doe() -> String {
    "John Doe".into()
}
fn thirty() -> i64 {
    30
}
fn ninety_five_and_a_half() -> f64 {
    95.5
}
fn yes() -> bool {
    true
}

/// A status, one of three plain values.
#[derive(Deserialize, Serialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

/// A form whose every field has a default (SEP-1034).
#[derive(Deserialize, Serialize, JsonSchema)]
struct Defaults {
    /// Your name.
    #[serde(default = "john_doe")]
    name: String,
    /// Your age.
    #[serde(default = "thirty")]
    age: i64,
    /// Your score.
    #[serde(default = "ninety_five_and_a_half")]
    score: f64,
    /// Your status.
    #[serde(default)]
    status: Status,
    /// Whether you are verified.
    #[serde(default = "yes")]
    verified: bool,
}

/// Asks for a form whose fields all have defaults (SEP-1034).
#[tool(read_only, closed_world)]
async fn test_elicitation_sep1034_defaults(elicit: Elicit) -> Result<String, ToolError> {
    let answer = elicit
        .ask::<Defaults>("Please review and update the form fields with defaults")
        .await
        .map_err(failed)?;
    Ok(format!("Elicitation completed: {}", said(&answer)))
}

/// The five enum shapes of SEP-1330, as rmcp's form schema: titled options and the legacy
/// `enumNames` are shapes a Rust enum does not say, so this form is written out.
fn enum_form() -> Result<ElicitationSchema, ToolError> {
    let titled = |prefix: &str, what: &str| -> Vec<Value> {
        ["First", "Second", "Third"]
            .iter()
            .enumerate()
            .map(|(i, n)| serde_json::json!({"const": format!("{prefix}{}", i + 1), "title": format!("{n} {what}")}))
            .collect()
    };
    let form = serde_json::json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": titled("value", "Option")},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": titled("value", "Choice")}},
        },
    });
    serde_json::from_value(form).map_err(|err| ToolError::new(err.to_string()))
}

/// Asks for a form with every enum shape of SEP-1330.
#[tool(read_only, closed_world)]
async fn test_elicitation_sep1330_enums(elicit: Elicit) -> Result<String, ToolError> {
    let answer = elicit
        .ask_form("Please select options from the enum fields", enum_form()?)
        .await
        .map_err(failed)?;
    Ok(format!("Elicitation completed: {}", said(&answer)))
}

/// Asks the client's model to answer a prompt.
///
/// # Arguments
/// * `prompt` - What to ask the model.
#[tool(read_only, closed_world)]
async fn test_sampling(prompt: String, sample: Sample) -> Result<String, ToolError> {
    let reply = sample.text(prompt, 100).await.map_err(failed)?;
    Ok(format!("LLM response: {reply}"))
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    toolsmith::Server::new()
        .info("toolsmith-conformance", env!("CARGO_PKG_VERSION"))
        .run()
        .await
}
