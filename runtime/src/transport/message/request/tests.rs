//! The envelope and the allow-list, on the messages every way in sees.

use serde_json::{Value, json};

use super::{Admit, Envelope, FastRequest, Revision};

const STDIO: Admit = Admit {
    notices: true,
    handshakes: false,
};
const HTTP: Admit = Admit {
    notices: false,
    handshakes: true,
};

fn decode(message: Value, notices: bool) -> Option<FastRequest> {
    let text = message.to_string();
    let admit = if notices { STDIO } else { HTTP };
    Envelope::read(text.as_bytes())?.request(admit)
}

/// What the HTTP fast path reads: a request, or a notification's method and params.
#[derive(Debug)]
enum Stateless {
    Request(FastRequest),
    Notification(String, String),
}

fn stateless(message: Value) -> Option<Stateless> {
    let text = message.to_string();
    let envelope = Envelope::read(text.as_bytes())?;
    if let Some((method, params)) = envelope.notification() {
        return Some(Stateless::Notification(method.into(), params.into()));
    }
    match envelope.request(HTTP)? {
        request @ (FastRequest::Initialize { .. } | FastRequest::Ping { .. }) => {
            Some(Stateless::Request(request))
        }
        _ => None,
    }
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

#[test]
fn handshakes_pings_and_notifications_are_read() {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "k6-bench", "version": "1.0"}}});
    let Some(Stateless::Request(FastRequest::Initialize { params, .. })) = stateless(initialize)
    else {
        panic!("a plain initialize is read");
    };
    assert_eq!(params.protocol_version.as_str(), "2024-11-05");
    assert_eq!(params.client_info.name, "k6-bench");
    assert!(matches!(
        stateless(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"})),
        Some(Stateless::Request(FastRequest::Ping { .. }))
    ));
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let Some(Stateless::Notification(method, params)) = stateless(initialized) else {
        panic!("a notification is read");
    };
    assert_eq!((&*method, &*params), ("notifications/initialized", "{}"));
}

#[test]
fn anything_unusual_is_left_to_rmcp() {
    for odd in [
        // No client info: rmcp's error.
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"}, "_meta": {"k": 1}}}),
        json!({"jsonrpc": "2.0", "method": "initialize", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 1, "_meta": {}}}),
        json!({"jsonrpc": "1.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized", "extra": 1}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ] {
        assert!(stateless(odd.clone()).is_none(), "{odd}");
    }
}

#[test]
fn one_read_serves_the_edge_and_the_fast_path() {
    // An unknown member: the edge still reads the method and the id; rmcp answers it.
    let odd = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"},"x":1}"#;
    let envelope = Envelope::read(odd).expect("an object");
    assert_eq!(envelope.method(), Some("tools/call"));
    assert_eq!(envelope.id.map(|id| id.get()), Some("7"));
    assert!(envelope.request(HTTP).is_none());
    // A member twice is no plain message either.
    let twice = br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#;
    assert!(Envelope::read(twice).unwrap().request(HTTP).is_none());
    let once = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    assert!(Envelope::read(once).unwrap().request(HTTP).is_some());
    // A response: no method, a result.
    let reply = Envelope::read(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap();
    assert!(reply.is_reply() && reply.request(STDIO).is_none());
    // Not an object, or a method that is no string: nothing to read.
    assert!(Envelope::read(b"[1]").is_none());
    assert!(Envelope::read(br#"{"method": 3}"#).is_none());
    // A null id is no id: a notification.
    let null_id = br#"{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}"#;
    assert!(Envelope::read(null_id).unwrap().notification().is_some());
}

#[test]
fn ids_are_read_as_rmcp_reads_them() {
    use rmcp::model::RequestId;
    let id_of = |id: &str| {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
        let request = Envelope::read(text.as_bytes())?.request(HTTP)?;
        Some(request.id().clone())
    };
    for id in [
        "7",
        "-3",
        "0",
        "9223372036854775807",
        "1.0",
        "1e2",
        r#""abc""#,
        r#""a\u0062""#,
        r#""""#,
    ] {
        let ours = id_of(id);
        let rmcps = serde_json::from_str::<RequestId>(id).ok();
        assert_eq!(ours, rmcps, "{id}");
    }
    assert_eq!(id_of(r#""a\"b""#), Some(RequestId::String("a\"b".into())));
    // Not an id a request may have: rmcp answers it.
    for id in ["null", "1.5", "true", "[1]", "18446744073709551616"] {
        assert_eq!(id_of(id), None, "{id}");
    }
}

/// The envelope borrows its method from the message (one read of a line allocates nothing
/// for it), and unescapes one written with escapes.
#[test]
fn the_method_is_borrowed_unless_it_has_escapes() {
    let plain = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#;
    let envelope = Envelope::read(plain).unwrap();
    assert!(matches!(
        envelope.method,
        Some(std::borrow::Cow::Borrowed("tools/call"))
    ));
    assert!(envelope.request(STDIO).is_some());
    let escaped = br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"t"}}"#;
    let envelope = Envelope::read(escaped).unwrap();
    assert_eq!(envelope.method(), Some("tools/call"));
    assert!(envelope.request(STDIO).is_some());
    let version = br#"{"jsonrpc":"2\u002e0","id":1,"method":"tools/call","params":{"name":"t"}}"#;
    assert!(Envelope::read(version).unwrap().request(STDIO).is_some());
    let number = br#"{"jsonrpc":2,"id":1,"method":"tools/call"}"#;
    assert!(Envelope::read(number).is_none_or(|e| e.request(STDIO).is_none()));
}
