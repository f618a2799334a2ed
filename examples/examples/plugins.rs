//! A server whose tools are made at run time, not by `#[tool]`: hand-written
//! [`toolsmith::Tool`]s in a registry of its own, and a tool that loads another while the
//! server serves (a plugin), so that clients hear `notifications/tools/list_changed`.
//!
//! `cargo run -p toolsmith-examples --example plugins` serves it over stdio; `-- tools`
//! shows its hints; `-- serve --http 127.0.0.1:8000` serves it over HTTP.
//!
//! - `word_count` (read-only, closed world): counts the words of a text, and keeps a tally.
//! - `forget_words` (destructive; the user confirms every call): empties the tally.
//! - `load_plugin` (additive, idempotent): adds `reverse_text` (read-only) to the server.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use toolsmith::ToolDescription;
use toolsmith::rmcp::model::JsonObject;
use toolsmith::{
    CallContext, Hints, Registry, Server, Tool, ToolError, registry::RegistryHandle,
    tool::ToolFuture, tool::ToolOutput,
};

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// The schema of a tool that takes one string, `text`.
fn text_input() -> JsonObject {
    object(json!({
        "type": "object",
        "properties": {"text": {"type": "string", "description": "The text."}},
        "required": ["text"],
        "additionalProperties": false,
    }))
}

/// The `text` argument, or the error that says what to send.
fn text_of(arguments: &JsonObject) -> Result<String, ToolError> {
    match arguments.get("text") {
        Some(Value::String(text)) => Ok(text.clone()),
        _ => Err(ToolError::new("give `text`, a string")),
    }
}

const READ_ONLY: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

struct WordCount(Arc<AtomicU64>);

impl Tool for WordCount {
    fn describe(&self) -> ToolDescription {
        let description = "Count the words of a text (and add them to the server's tally).";
        let output = object(json!({
            "type": "object",
            "properties": {"words": {"type": "integer"}, "tally": {"type": "integer"}},
            "required": ["words", "tally"],
        }));
        // It adds to a tally, but a client may run it freely: reading is what it is for.
        ToolDescription::new("word_count", description, text_input(), READ_ONLY)
            .with_title("Count words")
            .with_output_schema(output)
    }
    fn call(&self, arguments: JsonObject, _: &CallContext) -> ToolFuture {
        let tally = self.0.clone();
        Box::pin(async move {
            let words = text_of(&arguments)?.split_whitespace().count() as u64;
            let total = tally.fetch_add(words, Ordering::SeqCst) + words;
            let value = json!({"words": words, "tally": total});
            Ok(ToolOutput::new().text(value.to_string()).structured(value))
        })
    }
}

struct ForgetWords(Arc<AtomicU64>);

impl Tool for ForgetWords {
    fn describe(&self) -> ToolDescription {
        let schema =
            object(json!({"type": "object", "properties": {}, "additionalProperties": false}));
        let hints = Hints {
            read_only: false,
            destructive: true,
            idempotent: true,
            open_world: false,
        };
        ToolDescription::new(
            "forget_words",
            "Empty the tally of words counted.",
            schema,
            hints,
        )
        .with_title("Forget words")
        .with_confirms(true)
        .with_confirm_message("Forget every word counted?")
    }
    fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
        let tally = self.0.clone();
        Box::pin(async move {
            let forgotten = tally.swap(0, Ordering::SeqCst);
            Ok(ToolOutput::new().text(format!("forgot {forgotten} words")))
        })
    }
}

struct ReverseText;

impl Tool for ReverseText {
    fn describe(&self) -> ToolDescription {
        ToolDescription::new(
            "reverse_text",
            "Reverse a text, character by character.",
            text_input(),
            READ_ONLY,
        )
        .with_title("Reverse text")
    }
    fn call(&self, arguments: JsonObject, _: &CallContext) -> ToolFuture {
        Box::pin(async move {
            let reversed: String = text_of(&arguments)?.chars().rev().collect();
            Ok(ToolOutput::new().text(reversed))
        })
    }
}

/// Adds `reverse_text` to the server it serves in, through the server's handle.
struct LoadPlugin(RegistryHandle);

impl Tool for LoadPlugin {
    fn describe(&self) -> ToolDescription {
        let schema =
            object(json!({"type": "object", "properties": {}, "additionalProperties": false}));
        let hints = Hints {
            read_only: false,
            destructive: false,
            idempotent: true,
            open_world: false,
        };
        let description =
            "Load the text plugin: adds the tool `reverse_text`. Loading it again changes nothing.";
        ToolDescription::new("load_plugin", description, schema, hints).with_title("Load plugin")
    }
    fn call(&self, _: JsonObject, _: &CallContext) -> ToolFuture {
        let tools = self.0.clone();
        Box::pin(async move {
            if tools.current().get("reverse_text").is_some() {
                return Ok(ToolOutput::new().text("reverse_text is loaded already"));
            }
            tools
                .add_tool(ReverseText)
                .map_err(|err| ToolError::new(err.to_string()))?;
            Ok(ToolOutput::new().text("loaded reverse_text"))
        })
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let tally = Arc::new(AtomicU64::new(0));
    let registry = Registry::new()
        .with_tool(WordCount(tally.clone()))
        .and_then(|registry| registry.with_tool(ForgetWords(tally)));
    let registry = match registry {
        Ok(registry) => registry,
        Err(err) => {
            eprintln!("{err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let server = Server::with_registry(registry).info("plugins", env!("CARGO_PKG_VERSION"));
    let tools = server.registry_handle();
    if let Err(err) = tools.add_tool(LoadPlugin(tools.clone())) {
        eprintln!("{err}");
        return std::process::ExitCode::FAILURE;
    }
    server.run().await
}
