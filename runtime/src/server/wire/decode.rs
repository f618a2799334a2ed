//! Reading a request on a fast path: the envelope of a `tools/call`, `tools/list` or
//! `server/discover`, then its params as rmcp's own params types, and the one allow-list that
//! decides what a fast path answers and what it leaves to rmcp's service, for every way in
//! alike.

use std::borrow::Cow;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, PaginatedRequestParams, ProtocolVersion, RequestId,
    RequestMetaObject,
};
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
        revision: Revision,
    },
    /// A `tools/list` of the first page.
    List { id: RequestId, revision: Revision },
    /// `server/discover` (2026-07-28 only).
    Discover { id: RequestId },
}

/// The `_meta` keys of a request that carries its revision (2026-07-28).
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// How a request says which revision it speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Revision {
    /// It does not: its session negotiated one (`initialize`, or an HTTP header naming a
    /// revision before 2026-07-28).
    Negotiated,
    /// It carries 2026-07-28 in its `_meta`, with everything that revision requires there.
    PerRequest,
}

impl Revision {
    /// The revision has `resultType` and caching hints.
    pub(crate) fn per_request(self) -> bool {
        self == Revision::PerRequest
    }

    /// The revision `meta` declares: `None` for one a fast path does not answer (another
    /// revision, or required keys missing: rmcp answers with its exact error).
    fn of(meta: Option<&RequestMetaObject>) -> Option<Revision> {
        // Read in place: this runs for every request.
        let Some(meta) = meta else {
            return Some(Revision::Negotiated);
        };
        let Some(version) = meta.get(VERSION_KEY) else {
            return Some(Revision::Negotiated);
        };
        let current = ProtocolVersion::V_2026_07_28;
        let complete = meta
            .get(CAPABILITIES_KEY)
            .is_some_and(|caps| ClientCapabilities::deserialize(caps).is_ok());
        (version.as_str() == Some(current.as_str()) && complete).then_some(Revision::PerRequest)
    }
}

/// Decodes `message` for a fast path, or `None` for rmcp's service to answer it. The rules,
/// the same on every way in:
/// - the envelope is exactly a JSON-RPC 2.0 request (`jsonrpc`, `id`, `method`, and `params`
///   when it is an object; an unknown member or anything odd goes to rmcp, which validates
///   it in full);
/// - the method is `tools/call`, `tools/list` or `server/discover`, its params decode as
///   rmcp's own types;
/// - a request that carries its own revision carries 2026-07-28 and every `_meta` key that
///   revision requires (rmcp answers anything else with its own error); `server/discover`
///   must;
/// - a call asking for progress needs a way in that can send notifications before the
///   answer (`notices`);
/// - a list asks for the first page (a cursor is rmcp's).
///
/// Everything a call carries, `inputResponses` and `requestState` included, reaches the call
/// pipeline as it came: no way in drops a field.
#[inline]
pub(crate) fn fast_request(message: &[u8], notices: bool) -> Option<FastRequest> {
    let (id, method, params) = envelope(message)?;
    match method {
        Method::Call => {
            let params = serde_json::from_str::<CallToolRequestParams>(params).ok()?;
            let revision = Revision::of(params.meta.as_ref())?;
            if !notices
                && let Some(meta) = &params.meta
                && meta.get_progress_token().is_some()
            {
                return None;
            }
            Some(FastRequest::Call {
                id,
                params,
                revision,
            })
        }
        Method::List => {
            let params = serde_json::from_str::<PaginatedRequestParams>(params).ok()?;
            let revision = Revision::of(params.meta.as_ref())?;
            if params.cursor.is_some() {
                return None;
            }
            Some(FastRequest::List { id, revision })
        }
        Method::Discover => {
            let params = serde_json::from_str::<PaginatedRequestParams>(params).ok()?;
            match Revision::of(params.meta.as_ref())? {
                Revision::PerRequest => Some(FastRequest::Discover { id }),
                Revision::Negotiated => None,
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Method {
    Call,
    List,
    Discover,
}

/// The id, method and params (an object, as raw JSON) of a request a fast path may answer.
fn envelope(message: &[u8]) -> Option<(RequestId, Method, &str)> {
    let (id, method, params) = parts(message)?;
    let method = match &*method {
        "tools/call" => Method::Call,
        "tools/list" => Method::List,
        "server/discover" => Method::Discover,
        _ => return None,
    };
    Some((id?, method, params))
}

/// A JSON-RPC 2.0 message with a method and nothing unknown: its id (none for a
/// notification), method and params (an object, as raw JSON; `{}` when absent).
pub(crate) fn parts(message: &[u8]) -> Option<(Option<RequestId>, Cow<'_, str>, &str)> {
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
    let params = envelope.params.map_or("{}", RawValue::get);
    if envelope.jsonrpc != "2.0" || !params.starts_with('{') {
        return None;
    }
    Some((envelope.id, envelope.method?, params))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{FastRequest, Revision, fast_request};

    fn decode(message: Value, notices: bool) -> Option<FastRequest> {
        fast_request(message.to_string().as_bytes(), notices)
    }

    fn call(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    }

    #[test]
    fn plain_calls_and_first_pages_are_answered_on_the_fast_path() {
        let plain = decode(call(json!({"name": "t", "arguments": {"a": 1}})), false);
        let Some(FastRequest::Call {
            params, revision, ..
        }) = plain
        else {
            panic!("a plain call takes the fast path: {plain:?}");
        };
        assert_eq!(params.name, "t");
        assert_eq!(revision, Revision::Negotiated);
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
        // 2026-07-28 without the client capabilities it requires: rmcp's error.
        let incomplete = call(json!({"name": "t", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}));
        assert!(decode(incomplete, true).is_none());
        let unknown = call(json!({"name": "t", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2099-01-01",
            "io.modelcontextprotocol/clientCapabilities": {}}}));
        assert!(decode(unknown, true).is_none());
        let plain_discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"});
        assert!(decode(plain_discover, true).is_none());
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
    fn complete_2026_requests_are_answered_on_the_fast_path() {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/logLevel": "info"});
        let per_request = call(json!({"name": "t", "_meta": meta}));
        let Some(FastRequest::Call { revision, .. }) = decode(per_request, false) else {
            panic!("a complete 2026-07-28 call takes the fast path");
        };
        assert_eq!(revision, Revision::PerRequest);
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
            "params": {"_meta": meta}});
        assert!(matches!(
            decode(list, false),
            Some(FastRequest::List {
                revision: Revision::PerRequest,
                ..
            })
        ));
        let discover = json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover",
            "params": {"_meta": meta}});
        assert!(matches!(
            decode(discover, false),
            Some(FastRequest::Discover { .. })
        ));
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
