//! Reading what a stateless HTTP server answers without any state at all: `initialize` (its
//! answer depends only on the revision asked for), `ping`, and a notification (outside a
//! session there is nothing for one to change: rmcp accepts it and drops it). Anything
//! unusual (`_meta` on any of them, params `ping` does not take, a malformed handshake) is
//! left to rmcp's service, which answers it exactly.

use rmcp::model::{InitializeRequestParams, ProtocolVersion, RequestId};

/// A message a stateless server answers without a service.
#[derive(Debug)]
pub(crate) enum Stateless {
    /// A well-formed `initialize` (as rmcp reads it) asking for `version`.
    Initialize {
        id: RequestId,
        version: ProtocolVersion,
    },
    Ping {
        id: RequestId,
    },
    /// A notification: accepted (202), nothing runs.
    Notification,
}

/// `message` as one of [`Stateless`], or `None` for rmcp to serve.
pub(crate) fn stateless_request(message: &[u8]) -> Option<Stateless> {
    let (id, method, params) = super::decode::parts(message)?;
    match (id, &*method) {
        (None, method) if method.starts_with("notifications/") && !params.contains("\"_meta\"") => {
            Some(Stateless::Notification)
        }
        (Some(id), "initialize") => {
            let params = serde_json::from_str::<InitializeRequestParams>(params).ok()?;
            params.meta.is_none().then_some(Stateless::Initialize {
                id,
                version: params.protocol_version,
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

    fn decode(message: Value) -> Option<Stateless> {
        stateless_request(message.to_string().as_bytes())
    }

    #[test]
    fn handshakes_pings_and_notifications_are_read() {
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "k6-bench", "version": "1.0"}}});
        let Some(Stateless::Initialize { version, .. }) = decode(initialize) else {
            panic!("a plain initialize is read");
        };
        assert_eq!(version.as_str(), "2024-11-05");
        assert!(matches!(
            decode(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"})),
            Some(Stateless::Ping { .. })
        ));
        assert!(matches!(
            decode(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Some(Stateless::Notification)
        ));
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
