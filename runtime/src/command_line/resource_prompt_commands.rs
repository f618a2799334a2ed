//! The commands about resources and prompts: `resources` and `prompts` (what is declared),
//! `read URI` and `prompt NAME --args JSON` (in-process, through the pipeline, as a client
//! would get them).

use std::io::Write;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::ErrorData;
use rmcp::model::ResourceContents;
use serde_json::{Value, json};

use super::pretty;
use crate::{Error, Server, tool::ScopeNames};

/// `resources [--json]`: every resource and template, with its annotations and scopes.
pub(super) fn resources(
    registry: &crate::Registry,
    json: bool,
    names: &ScopeNames,
) -> Result<u8, Error> {
    let mut out = std::io::stdout().lock();
    if json {
        let rows: Vec<Value> = registry
            .resources()
            .iter()
            .map(|r| {
                json!({
                    "uri": r.uri(),
                    "template": r.is_template(),
                    "name": r.name(),
                    "title": r.header().title(),
                    "mimeType": r.mime_type(),
                    "audience": r.audience(),
                    "priority": r.priority(),
                    "completes": r.completes().collect::<Vec<_>>(),
                    "scopes": names.required_for(r.header().scopes()).scopes(),
                })
            })
            .collect();
        writeln!(out, "{}", pretty(&Value::Array(rows)))?;
        return Ok(0);
    }
    let mut rows = vec![
        ["URI", "NAME", "TITLE", "MIME TYPE", "COMPLETES", "SCOPE"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for r in registry.resources() {
        let completes: Vec<&str> = r.completes().collect();
        rows.push(vec![
            r.uri().to_owned(),
            r.name().to_owned(),
            r.header().title().unwrap_or("-").to_owned(),
            r.mime_type().unwrap_or("-").to_owned(),
            dash(completes.join(",")),
            names.required_for(r.header().scopes()).to_string(),
        ]);
    }
    if registry.resources().is_empty() {
        eprintln!(
            "no resource is registered: declare one with #[toolsmith::resource(uri = \"...\")]"
        );
    }
    write!(out, "{}", toolsmith_audit::aligned(&rows))?;
    Ok(0)
}

/// `prompts [--json]`: every prompt with its arguments.
pub(super) fn prompts(
    registry: &crate::Registry,
    json: bool,
    names: &ScopeNames,
) -> Result<u8, Error> {
    let mut out = std::io::stdout().lock();
    if json {
        let rows: Vec<Value> = registry
            .prompts()
            .iter()
            .map(|p| {
                let mut row = serde_json::to_value(p.mcp_prompt()).unwrap_or_default();
                row["scopes"] = json!(names.required_for(p.header().scopes()).scopes());
                row
            })
            .collect();
        writeln!(out, "{}", pretty(&Value::Array(rows)))?;
        return Ok(0);
    }
    let mut rows = vec![
        ["NAME", "TITLE", "ARGUMENTS", "COMPLETES", "SCOPE"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for p in registry.prompts() {
        let arguments: Vec<String> = p
            .mcp_prompt()
            .arguments
            .iter()
            .flatten()
            .map(|a| match a.required {
                Some(true) => a.name.clone(),
                _ => format!("{}?", a.name),
            })
            .collect();
        let completes: Vec<&str> = p.completes().collect();
        rows.push(vec![
            p.name().to_owned(),
            p.header().title().unwrap_or("-").to_owned(),
            dash(arguments.join(",")),
            dash(completes.join(",")),
            names.required_for(p.header().scopes()).to_string(),
        ]);
    }
    if registry.prompts().is_empty() {
        eprintln!("no prompt is registered: declare one with #[toolsmith::prompt]");
    }
    write!(out, "{}", toolsmith_audit::aligned(&rows))?;
    Ok(0)
}

fn dash(text: String) -> String {
    if text.is_empty() {
        "-".to_owned()
    } else {
        text
    }
}

/// `read URI`: the contents, text as it is (a blob base64-decoded to stdout).
pub(super) async fn read(server: &Server, uri: &str) -> Result<u8, Error> {
    crate::logging::init();
    let result = match server.read_local(uri).await? {
        Ok(result) => result,
        Err(error) => return Ok(refused(&error)),
    };
    let mut out = std::io::stdout().lock();
    for content in result.contents {
        match content {
            ResourceContents::TextResourceContents { text, .. } => writeln!(out, "{text}")?,
            ResourceContents::BlobResourceContents { blob, .. } => match STANDARD.decode(&blob) {
                Ok(bytes) => out.write_all(&bytes)?,
                Err(_) => writeln!(out, "{blob}")?,
            },
            _ => {}
        }
    }
    Ok(0)
}

/// `prompt NAME --args JSON`: the messages, as JSON.
pub(super) async fn prompt(server: &Server, name: &str, args: &str) -> Result<u8, Error> {
    crate::logging::init();
    let arguments = match serde_json::from_str::<Value>(args) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            eprintln!("--args must be a JSON object, e.g. --args '{{\"tag\": \"work\"}}'");
            return Ok(2);
        }
        Err(err) => {
            eprintln!("--args is not valid JSON: {err}");
            return Ok(2);
        }
    };
    let mut result = match server.prompt_local(name, arguments).await? {
        Ok(result) => result,
        Err(error) => return Ok(refused(&error)),
    };
    result.result_type = None;
    let value = serde_json::to_value(&result).map_err(|err| Error::Encode(err.into()))?;
    writeln!(std::io::stdout().lock(), "{}", pretty(&value))?;
    Ok(0)
}

fn refused(error: &ErrorData) -> u8 {
    eprintln!("{} ({})", error.message, error.code.0);
    1
}
