//! What a whole line is: a message for rmcp, or an error answered by the transport, so that
//! every request with an id gets an answer and nothing answers a notification.
//!
//! - Not JSON: `-32700 Parse error` with `id: null` (rmcp's own transport drops it).
//! - JSON that the parser cannot hold (nested past its depth limit, a lone surrogate escape,
//!   a number out of range): a request whose id can be read exactly (`idscan.rs`) is
//!   answered with that id, `-32602 Invalid params` when its envelope reads (the trouble is
//!   in its params), `-32700` when not; one whose id cannot be read gets `-32700` with
//!   `id: null`; a notification or a response gets nothing.
//! - JSON but not a valid message: `-32600 Invalid Request`, with the id when it is a string
//!   or an integer, with `id: null` when it is anything else; a broken notification or
//!   response gets nothing.
//! - A known method whose params do not fit it (not an object, a `cursor` that is not a
//!   string, a `tools/call` without a name): `-32602 Invalid params` (rmcp would answer
//!   "method not found", or ignore the params).

use std::borrow::Cow;

use rmcp::RoleServer;
use rmcp::model::{CallToolRequestParams, ClientRequest, ErrorData, JsonRpcMessage, RequestId};
use rmcp::service::RxJsonRpcMessage;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;

use super::idscan::{FoundId, IdScan};

/// What a line comes to.
#[allow(clippy::large_enum_variant)] // matched at once; a box would cost an allocation
pub(crate) enum Decoded {
    Message(RxJsonRpcMessage<RoleServer>),
    /// Answer this error, to this id (`None`: `id: null`).
    Reply(ErrorData, Option<RequestId>),
    /// Nothing to do: a blank line, or a broken notification or response.
    Nothing,
}

/// The MCP methods rmcp knows.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "logging/setLevel",
    "completion/complete",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// The methods whose params carry a `cursor`.
const PAGED_METHODS: &[&str] = &[
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
];

pub(crate) fn decode(mut line: &[u8]) -> Decoded {
    line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Decoded::Nothing;
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => check_params(line, message),
        Err(err) => invalid(line, &err),
    }
}

/// A line rmcp could not read as a message.
fn invalid(line: &[u8], err: &serde_json::Error) -> Decoded {
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(err) => return unreadable(line, &err),
    };
    let invalid = || ErrorData::invalid_request(format!("Invalid Request: {err}"), None);
    let has = |key| value.get(key).is_some();
    let response = !has("method") && (has("result") || has("error"));
    let known = value["method"]
        .as_str()
        .is_some_and(|m| KNOWN_METHODS.contains(&m));
    let params_not_object = value
        .get("params")
        .is_some_and(|p| !p.is_object() && !p.is_null());
    match value.get("id") {
        _ if response => {
            tracing::debug!(%err, "an invalid response was dropped");
            Decoded::Nothing
        }
        Some(id) if known && params_not_object => {
            let method = value["method"].as_str().unwrap_or_default();
            let error = ErrorData::invalid_params(
                format!("Invalid params for '{method}': params must be an object"),
                None,
            );
            Decoded::Reply(error, serde_json::from_value(id.clone()).ok())
        }
        // An id that is neither a string nor an integer within i64 cannot be echoed.
        Some(id) => Decoded::Reply(invalid(), serde_json::from_value(id.clone()).ok()),
        None if has("method") => {
            tracing::debug!(%err, "an invalid notification was dropped");
            Decoded::Nothing
        }
        None => Decoded::Reply(invalid(), None),
    }
}

/// A line serde_json cannot read as a value: not JSON, or JSON past the parser's limits.
fn unreadable(line: &[u8], err: &serde_json::Error) -> Decoded {
    let parse_error = || ErrorData::parse_error(format!("Parse error: {err}"), None);
    // Read without building anything: no depth limit, numbers and escapes unchecked.
    if serde_json::from_slice::<IgnoredAny>(line).is_err() {
        return Decoded::Reply(parse_error(), None);
    }
    let mut scan = IdScan::new();
    scan.feed(line);
    let scanned = scan.finish();
    if !scanned.method {
        tracing::debug!(%err, "an unreadable response was dropped");
        return Decoded::Nothing;
    }
    let id = match scanned.id {
        FoundId::Number(n) => RequestId::Number(n),
        FoundId::String(s) => RequestId::String(s.into()),
        FoundId::Absent => {
            tracing::debug!(%err, "an unreadable notification was dropped");
            return Decoded::Nothing;
        }
        FoundId::Unusable => return Decoded::Reply(parse_error(), None),
    };
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        method: Cow<'a, str>,
    }
    let error = match serde_json::from_slice::<Envelope>(line) {
        Ok(envelope) if KNOWN_METHODS.contains(&&*envelope.method) => {
            let method = envelope.method;
            ErrorData::invalid_params(format!("Invalid params for '{method}': {err}"), None)
        }
        Ok(_) => ErrorData::invalid_params(format!("Invalid params: {err}"), None),
        Err(_) => parse_error(),
    };
    Decoded::Reply(error, Some(id))
}

/// Answers `-32602` for a request to a known method whose params do not fit it.
fn check_params(line: &[u8], message: RxJsonRpcMessage<RoleServer>) -> Decoded {
    let JsonRpcMessage::Request(request) = &message else {
        return Decoded::Message(message);
    };
    let method = request.request.method();
    if !KNOWN_METHODS.contains(&method) {
        return Decoded::Message(message);
    }
    let why = match &request.request {
        ClientRequest::CustomRequest(custom) if method == "tools/call" => {
            // Parsed from text: the parser of these params is in the binary already.
            let params = custom.params.as_ref().unwrap_or(&Value::Null).to_string();
            let err = serde_json::from_str::<CallToolRequestParams>(&params).err();
            Some(err.map_or_else(String::new, |e| format!(": {e}")))
        }
        ClientRequest::CustomRequest(_) => Some(String::new()),
        _ => shape_problem(line, method),
    };
    match why {
        None => Decoded::Message(message),
        Some(why) => Decoded::Reply(
            ErrorData::invalid_params(format!("Invalid params for '{method}'{why}"), None),
            Some(request.id.clone()),
        ),
    }
}

/// What rmcp accepts but the method's params cannot be: not an object, or a `cursor` that is
/// not a string.
fn shape_problem(line: &[u8], method: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        params: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Paged<'a> {
        #[serde(borrow)]
        cursor: Option<Cow<'a, RawValue>>,
    }

    let params = serde_json::from_slice::<Envelope>(line).ok()?.params?.get();
    if params == "null" {
        return None;
    }
    if !params.starts_with('{') {
        return Some(": params must be an object".into());
    }
    if PAGED_METHODS.contains(&method) {
        let cursor = serde_json::from_str::<Paged>(params).ok()?.cursor?;
        let cursor = cursor.get();
        if !cursor.starts_with('"') && cursor != "null" {
            return Some(": cursor must be a string".into());
        }
    }
    None
}

#[cfg(test)]
mod tests;
