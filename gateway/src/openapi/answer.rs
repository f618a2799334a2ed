//! An API's answer, read up to its cap with every configured credential redacted from it
//! (see `redact.rs`): a 2xx answer the tool's result (JSON as structured content when the
//! tool has an output schema), any other an error result with the status and the start of
//! what it said.

use base64::Engine;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::Value;
use toolsmith::ToolError;

use super::redact::Redactor;
use super::why;

/// How much of an error answer's body its error result quotes.
const EXCERPT: usize = 1024;

/// `answer` to the request of `shown` (its method and path) at `requested` (its URL without
/// credentials), read as the tool's result: at most `max_answer` bytes, what `redactor` knows
/// redacted; `structured`: whether the tool has an output schema.
pub(crate) async fn read(
    mut answer: reqwest::Response,
    shown: &str,
    requested: &str,
    (max_answer, redactor): (usize, &Redactor),
    structured: bool,
) -> Result<CallToolResult, ToolError> {
    let status = answer.status();
    let kind = answer
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let kind = redactor.text(kind);
    let mut bytes = Vec::new();
    while let Some(chunk) = answer
        .chunk()
        .await
        .map_err(|err| ToolError::new(format!("{shown}: the answer was cut off: {}", why(err))))?
    {
        if bytes.len() + chunk.len() > max_answer {
            return Err(ToolError::new(format!(
                "{shown}: the answer is longer than {} bytes, the most this tool reads",
                max_answer
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    // Before anything of it is read: an API may quote the request, credentials and all.
    let bytes = redactor.bytes(bytes);
    if !status.is_success() {
        let text = String::from_utf8_lossy(&bytes);
        let mut excerpt: String = text.chars().take(EXCERPT).collect();
        if excerpt.len() < text.len() {
            excerpt.push_str(" …");
        }
        return Err(ToolError::new(format!("{shown}: HTTP {status}: {excerpt}")));
    }
    Ok(answer_result(requested, &kind, bytes, structured, status))
}

/// `value` with every `null` member of its objects left out: the output schema says such
/// a member may be absent (see `schema.rs`), never `null`.
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .into_iter()
                .filter(|(_, member)| !member.is_null())
                .map(|(key, member)| (key, without_nulls(member)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// A 2xx answer as a tool's result: JSON as text (and as structured content when it is an
/// object and the tool has an output schema), other text as text, anything else as a
/// resource holding its bytes (at the URL asked).
fn answer_result(
    url: &str,
    kind: &str,
    bytes: Vec<u8>,
    structured: bool,
    status: reqwest::StatusCode,
) -> CallToolResult {
    let essence = kind.split(';').next().unwrap_or_default().trim();
    let json = essence == "application/json" || essence.ends_with("+json");
    let value = json
        .then(|| serde_json::from_slice::<Value>(&bytes).ok())
        .flatten();
    if structured {
        // The tool declares an output schema: a successful call has structured content.
        return match value {
            Some(value @ Value::Object(_)) => CallToolResult::structured(without_nulls(value)),
            _ => {
                let got = match value {
                    Some(_) => "JSON that is not an object",
                    None if bytes.is_empty() => "no body",
                    None if json => "JSON it cannot read",
                    None => "something that is not JSON",
                };
                CallToolResult::error(vec![ContentBlock::text(format!(
                    "the API answered HTTP {status} with {got}, where its document promises a JSON object"
                ))])
            }
        };
    }
    if bytes.is_empty() {
        return CallToolResult::success(vec![ContentBlock::text(format!("HTTP {status}"))]);
    }
    if let Some(value) = value {
        return CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
    }
    match String::from_utf8(bytes) {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(err) => {
            let blob = base64::engine::general_purpose::STANDARD.encode(err.into_bytes());
            let mime = if essence.is_empty() {
                "application/octet-stream"
            } else {
                essence
            };
            let resource = ResourceContents::blob(blob, url).with_mime_type(mime);
            CallToolResult::success(vec![ContentBlock::resource(resource)])
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_tool_with_an_output_schema_answers_with_structured_content_or_an_error() {
        let ok = reqwest::StatusCode::OK;
        let json = "application/json";
        let answer = |kind: &str, body: &str, structured: bool| {
            answer_result("http://a/x", kind, body.as_bytes().to_vec(), structured, ok)
        };
        let object = answer(json, r#"{"id": 1, "tag": null}"#, true);
        assert_eq!(object.is_error, Some(false));
        assert_eq!(object.structured_content, Some(json!({"id": 1})));
        for (kind, body, said) in [
            (json, "[1]", "JSON that is not an object"),
            (json, "", "no body"),
            ("text/plain", "fine", "something that is not JSON"),
        ] {
            let wrong = answer(kind, body, true);
            assert_eq!(wrong.is_error, Some(true), "{body}");
            let text = format!("{:?}", wrong.content);
            assert!(text.contains(said) && text.contains("HTTP 200"), "{text}");
        }
        // Without an output schema, anything is an answer.
        assert_eq!(answer(json, "[1]", false).is_error, Some(false));
        assert_eq!(answer(json, "", false).is_error, Some(false));
    }
}
