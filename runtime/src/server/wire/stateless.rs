//! Reading what an HTTP server answers without a service: `initialize` (its answer depends
//! only on the revision asked for), `ping`, and a notification (outside a session there is
//! nothing for one to change: rmcp accepts it and drops it; in a session the server opened,
//! `notifications/initialized` and `notifications/cancelled` are the server's). Anything
//! unusual (`_meta` on any of them, params `ping` does not take, a malformed handshake) is
//! left to rmcp's service, which answers it exactly.

use std::borrow::Cow;

use rmcp::model::{InitializeRequestParams, RequestId};

/// A message an HTTP server answers without a service.
#[derive(Debug)]
pub(crate) enum Stateless<'a> {
    /// A well-formed `initialize` (as rmcp reads it).
    Initialize {
        id: RequestId,
        params: Box<InitializeRequestParams>,
    },
    Ping {
        id: RequestId,
    },
    /// A notification: its method and params (an object, as raw JSON).
    Notification {
        method: Cow<'a, str>,
        params: &'a str,
    },
}

/// `message` as one of [`Stateless`], or `None` for rmcp to serve.
pub(crate) fn stateless_request(message: &[u8]) -> Option<Stateless<'_>> {
    let (id, method, params) = super::decode::parts(message)?;
    match (id, &*method) {
        (None, name) if name.starts_with("notifications/") && !params.contains("\"_meta\"") => {
            Some(Stateless::Notification { method, params })
        }
        (Some(id), "initialize") => {
            let params = serde_json::from_str::<InitializeRequestParams>(params).ok()?;
            params.meta.is_none().then(|| Stateless::Initialize {
                id,
                params: Box::new(params),
            })
        }
        (Some(id), "ping") if params == "{}" => Some(Stateless::Ping { id }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Stateless, stateless_request};

    fn decode(message: Value) -> Option<Stateless<'static>> {
        // Kept for the test's length: what is read borrows from it.
        let text: &'static str = Box::leak(message.to_string().into_boxed_str());
        stateless_request(text.as_bytes())
    }

    #[test]
    fn handshakes_pings_and_notifications_are_read() {
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "k6-bench", "version": "1.0"}}});
        let Some(Stateless::Initialize { params, .. }) = decode(initialize) else {
            panic!("a plain initialize is read");
        };
        assert_eq!(params.protocol_version.as_str(), "2024-11-05");
        assert_eq!(params.client_info.name, "k6-bench");
        assert!(matches!(
            decode(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"})),
            Some(Stateless::Ping { .. })
        ));
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let Some(Stateless::Notification { method, params }) = decode(initialized) else {
            panic!("a notification is read");
        };
        assert_eq!((&*method, params), ("notifications/initialized", "{}"));
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
            assert!(decode(odd.clone()).is_none(), "{odd}");
        }
    }
}
