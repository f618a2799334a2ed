//! Reading a request on a fast path: the envelope of a `tools/call` or `tools/list`, then its
//! params as rmcp's own params types, and the one allow-list that decides what a fast path
//! answers and what it leaves to rmcp's service, for every way in alike.

use std::borrow::Cow;

use rmcp::model::{CallToolRequestParams, PaginatedRequestParams, RequestId};
use serde::Deserialize;
use serde_json::value::RawValue;

/// A request a fast path answers.
// Moved once, from the decoder to the way in: boxing the call would cost an allocation per
// call for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum FastRequest {
    Call {
        id: RequestId,
        params: CallToolRequestParams,
    },
    /// A `tools/list` of the first page.
    List { id: RequestId },
}

/// Decodes `message` for a fast path, or `None` for rmcp's service to answer it. The rules,
/// the same on every way in:
/// - the envelope is exactly a JSON-RPC 2.0 request (`jsonrpc`, `id`, `method`, and `params`
///   when it is an object; an unknown member or anything odd goes to rmcp, which validates
///   it in full);
/// - the method is `tools/call` or `tools/list`, its params decode as rmcp's own types;
/// - the request does not carry its own protocol revision (2026-07-28), which rmcp checks;
/// - a call asking for progress needs a way in that can send notifications before the
///   answer (`notices`);
/// - a list asks for the first page (a cursor is rmcp's).
///
/// Everything a call carries, `inputResponses` and `requestState` included, reaches the call
/// pipeline as it came: no way in drops a field.
pub(crate) fn fast_request(message: &[u8], notices: bool) -> Option<FastRequest> {
    let (id, method, params) = envelope(message)?;
    match method {
        Method::Call => {
            let params = serde_json::from_str::<CallToolRequestParams>(params).ok()?;
            if let Some(meta) = &params.meta
                && (meta.protocol_version().is_some()
                    || (!notices && meta.get_progress_token().is_some()))
            {
                return None;
            }
            Some(FastRequest::Call { id, params })
        }
        Method::List => {
            let params = serde_json::from_str::<PaginatedRequestParams>(params).ok()?;
            let modern = params
                .meta
                .as_ref()
                .is_some_and(|meta| meta.protocol_version().is_some());
            if modern || params.cursor.is_some() {
                return None;
            }
            Some(FastRequest::List { id })
        }
    }
}

#[derive(Clone, Copy)]
enum Method {
    Call,
    List,
}

/// The id, method and params (an object, as raw JSON) of a `tools/call` or `tools/list`.
fn envelope(message: &[u8]) -> Option<(RequestId, Method, &str)> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Envelope<'a> {
        #[serde(borrow)]
        jsonrpc: Cow<'a, str>,
        id: Option<RequestId>,
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow)]
        params: Option<&'a RawValue>,
    }

    let envelope = serde_json::from_slice::<Envelope>(message).ok()?;
    let (id, method) = (envelope.id?, envelope.method?);
    let params = envelope.params.map_or("{}", RawValue::get);
    if envelope.jsonrpc != "2.0" || !params.starts_with('{') {
        return None;
    }
    let method = match &*method {
        "tools/call" => Method::Call,
        "tools/list" => Method::List,
        _ => return None,
    };
    Some((id, method, params))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{FastRequest, fast_request};

    fn decode(message: Value, notices: bool) -> Option<FastRequest> {
        fast_request(message.to_string().as_bytes(), notices)
    }

    fn call(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    }

    #[test]
    fn plain_calls_and_first_pages_are_answered_on_the_fast_path() {
        let plain = decode(call(json!({"name": "t", "arguments": {"a": 1}})), false);
        let Some(FastRequest::Call { params, .. }) = plain else {
            panic!("a plain call takes the fast path: {plain:?}");
        };
        assert_eq!(params.name, "t");
        let list = json!({"jsonrpc": "2.0", "id": "x", "method": "tools/list"});
        assert!(matches!(
            decode(list, false),
            Some(FastRequest::List { .. })
        ));
        // `_meta` that changes nothing about the answer does not matter.
        let traced = call(json!({"name": "t", "_meta": {"traceparent": "00-a-b-01"}}));
        assert!(decode(traced, false).is_some());
    }

    #[test]
    fn the_rest_is_left_to_rmcp() {
        let progress = call(json!({"name": "t", "_meta": {"progressToken": 1}}));
        assert!(
            decode(progress.clone(), false).is_none(),
            "no way to send progress"
        );
        assert!(decode(progress, true).is_some(), "stdio sends progress");
        let modern = call(json!({"name": "t", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}));
        assert!(decode(modern, true).is_none());
        let cursor = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"cursor": "abc"}});
        assert!(decode(cursor, true).is_none());
        for odd in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1]}),
            json!({"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}),
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "t"}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"},
                "extra": true}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        ] {
            assert!(decode(odd.clone(), true).is_none(), "{odd}");
        }
    }

    #[test]
    fn multi_round_trip_fields_reach_the_pipeline() {
        let retry = call(json!({"name": "t", "requestState": "s",
            "inputResponses": {"confirm": {"action": "accept"}}}));
        let Some(FastRequest::Call { params, .. }) = decode(retry, false) else {
            panic!("a retry is a call like any other");
        };
        assert_eq!(params.request_state.as_deref(), Some("s"));
        assert!(
            params
                .input_responses
                .is_some_and(|r| r.contains_key("confirm"))
        );
    }
}
