//! The fast path for the requests that make up nearly all traffic: a stateless
//! `tools/call`, `tools/list` or `server/discover` whose headers are plainly acceptable is
//! answered by the server directly, as one JSON body (or one event), instead of through
//! rmcp's per-request service. What the fast path does not plainly accept (an `Origin`, an
//! unusual `Host`, a header that does not match the body, a request asking for progress, ...)
//! goes to rmcp, which checks it in full and answers it with its exact error.

use std::future::Future;
use std::pin::Pin;

use axum::body::Body as HttpBody;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::CallEvents;
use super::events::event_stream_headers;
use super::headers::{LAST_EVENT_ID, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, MCP_SESSION_ID};
use super::sessions::{Adopter, SessionCore};
use crate::context::Caller;
use crate::transport::message::FastRequest;

/// A JSON-RPC response, once the request is answered: its HTTP status and body.
pub(crate) type Body = Pin<Box<dyn Future<Output = (StatusCode, Vec<u8>)> + Send>>;

/// What a plainly acceptable request's headers say about it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct McpHeaders<'a> {
    /// It speaks 2026-07-28 (`MCP-Protocol-Version`), whose requests carry their revision
    /// in `_meta` and their method (and name) in headers.
    pub(crate) per_request: bool,
    /// `Mcp-Method`, on 2026-07-28.
    pub(crate) method: Option<&'a str>,
    /// `Mcp-Name`, on 2026-07-28, as sent (a Base64-encoded value is rmcp's to decode).
    pub(crate) name: Option<&'a str>,
    /// `MCP-Protocol-Version`, when sent.
    pub(crate) version: Option<&'a str>,
}

/// What the server answers itself (given to [`serve`](super::serve)).
pub(crate) trait FastPath: Adopter {
    /// The answer to a POSTed JSON-RPC message (`offer`: what the allow-list admitted of it)
    /// with these `headers`, or `None` for rmcp to serve it (decided before anything runs);
    /// a call's notifications go to `events`, when given. A 202 answer (to a notification)
    /// is sent without a body. `session`: the server's state of the session the message is
    /// of, when the server opened it (and rmcp does not serve it yet).
    fn answer(
        &self,
        offer: Offer<'_>,
        headers: McpHeaders<'_>,
        caller: Caller,
        events: Option<CallEvents>,
        trace: Option<crate::trace::Handoff>,
        session: Option<&SessionCore>,
    ) -> Option<Body>;

    /// With sessions: a new session for this `initialize`, or `None` for rmcp to open one.
    fn open(&self, request: FastRequest, headers: McpHeaders<'_>) -> Option<OpenedSession>;
}

/// What the edge offers the fast path of a POST, read once (`message/request.rs`).
// Moved once, from the edge to the fast path: boxing a call would cost an allocation.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Offer<'a> {
    /// A request the allow-list admits, decoded.
    Request(FastRequest),
    /// A notification without `_meta`: its method and params (an object, as raw JSON).
    Notification { method: &'a str, params: &'a str },
}

/// A session the server opened for an `initialize`.
pub(crate) struct OpenedSession {
    /// The JSON-RPC response to the `initialize`.
    pub(crate) answer: Vec<u8>,
    /// The handshake, which rmcp replays if it comes to serve the session.
    pub(crate) handshake: rmcp::model::InitializeRequestParams,
    /// What the server keeps for the session.
    pub(crate) core: SessionCore,
}

/// The revisions whose requests carry no per-request headers to check against the body.
/// No header means 2025-03-26.
const PLAIN_REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The revision whose requests carry `Mcp-Method` and `Mcp-Name`, checked against the body.
const MODERN_REVISION: &str = "2026-07-28";

/// What a POST's headers say, when rmcp would plainly accept them: `Accept` names JSON and
/// SSE, `Content-Type` is JSON, no `Origin`, no session (unless `sessions`: the server keeps
/// them, and a request of one names no revision of its own), `Host` is one of `hosts` exactly
/// (or with a port, for an entry without one), and either the protocol revision is one of
/// [`PLAIN_REVISIONS`] (or none) with no per-request MCP headers, or it is 2026-07-28 with
/// one `Mcp-Method`, at most one `Mcp-Name`, and no `Mcp-Param-*` (the server then checks
/// them against the body). `None` for anything else.
pub(super) fn plain<'a>(
    headers: &'a HeaderMap,
    hosts: &[String],
    sessions: bool,
) -> Option<McpHeaders<'a>> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let in_session = headers.contains_key(&MCP_SESSION_ID);
    if headers.contains_key(header::ORIGIN)
        || (in_session && !sessions)
        || headers.contains_key(&LAST_EVENT_ID)
    {
        return None;
    }
    let mcp = match headers.get(&MCP_PROTOCOL_VERSION) {
        None => McpHeaders::default(),
        Some(v) => match v.to_str().ok()? {
            MODERN_REVISION => McpHeaders {
                per_request: true,
                method: Some(single(headers, &MCP_METHOD)??),
                name: single(headers, &MCP_NAME)?,
                version: Some(MODERN_REVISION),
            },
            v if PLAIN_REVISIONS.contains(&v) => McpHeaders {
                version: Some(v),
                ..McpHeaders::default()
            },
            _ => return None,
        },
    };
    if !mcp.per_request && (headers.contains_key(&MCP_METHOD) || headers.contains_key(&MCP_NAME)) {
        return None;
    }
    if mcp.per_request
        && (in_session
            || headers
                .keys()
                .any(|name| name.as_str().starts_with("mcp-param-")))
    {
        return None;
    }
    let host_ok = text(header::HOST).is_some_and(|host| host_allowed(host, hosts));
    (acceptable(headers) && host_ok).then_some(mcp)
}

/// Whether a POST passes rmcp's first checks: its `Content-Type` is JSON, and its `Accept`
/// names JSON and SSE (rmcp answers 415 and 406 otherwise).
pub(super) fn acceptable(headers: &HeaderMap) -> bool {
    let json_body = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
        });
    json_body && accepts(headers, "application/json") && accepts(headers, "text/event-stream")
}

/// The one value of header `name`: `Some(None)` when absent, `None` when sent twice or not
/// text (rmcp refuses both).
fn single<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<Option<&'a str>> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Some(None);
    };
    if values.next().is_some() {
        return None;
    }
    first.to_str().ok().map(Some)
}

/// Whether the client takes server-sent events (its `Accept` names `text/event-stream`).
pub(super) fn accepts_events(headers: &HeaderMap) -> bool {
    accepts(headers, "text/event-stream")
}

/// Whether `Accept` names the media type `essence` (parameters aside).
fn accepts(headers: &HeaderMap, essence: &str) -> bool {
    headers.get_all(header::ACCEPT).iter().any(|accepted| {
        accepted.to_str().unwrap_or("").split(',').any(|item| {
            let named = item.split(';').next().unwrap_or("").trim();
            named.eq_ignore_ascii_case(essence)
        })
    })
}

/// The HTTP response carrying `message` with `status`: a JSON body, or (`sse`, and 200) a
/// stream of that one event, with the headers rmcp sends.
pub(super) fn respond((status, message): (StatusCode, Vec<u8>), sse: bool) -> Response {
    // A notification's: accepted, with nothing in it.
    if status == StatusCode::ACCEPTED {
        let mut response = Response::new(HttpBody::empty());
        *response.status_mut() = status;
        return response;
    }
    if !sse || status != StatusCode::OK {
        let mut response = Response::new(HttpBody::from(message));
        *response.status_mut() = status;
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        return response;
    }
    let mut event = Vec::with_capacity(message.len() + 8);
    event.extend_from_slice(b"data: ");
    event.extend_from_slice(&message);
    event.extend_from_slice(b"\n\n");
    let mut response = Response::new(HttpBody::from(event));
    event_stream_headers(response.headers_mut());
    response
}

/// `host` is an allowed entry, or an entry without a port followed by `:<port>`.
pub(super) fn host_allowed(host: &str, hosts: &[String]) -> bool {
    hosts.iter().any(|entry| {
        host.eq_ignore_ascii_case(entry)
            || (!entry.contains(':')
                && host.len() > entry.len()
                && host[..entry.len()].eq_ignore_ascii_case(entry)
                && host[entry.len()..].strip_prefix(':').is_some_and(|port| {
                    !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
                }))
    })
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue};

    use super::{McpHeaders, host_allowed, plain};

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn only_plainly_acceptable_requests_take_the_fast_path() {
        let hosts = vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "10.0.0.1:80".to_owned(),
        ];
        let base = [
            ("host", "127.0.0.1:8000"),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        assert_eq!(
            plain(&headers(&base), &hosts, false),
            Some(McpHeaders::default())
        );
        let with = |extra: &[(&'static str, &'static str)]| {
            let mut all = base.to_vec();
            all.extend_from_slice(extra);
            plain(&headers(&all), &hosts, false).is_some()
        };
        assert!(with(&[("mcp-protocol-version", "2025-11-25")]));
        assert!(!with(&[("mcp-protocol-version", "1999-01-01")]));
        assert!(!with(&[("origin", "http://localhost:3000")]));
        assert!(!with(&[("mcp-session-id", "abc")]));
        // Per-request headers belong to 2026-07-28 alone.
        assert!(!with(&[("mcp-method", "tools/list")]));
        let per_request = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "t"),
        ];
        let mut all = base.to_vec();
        all.extend_from_slice(&per_request);
        let map = headers(&all);
        assert_eq!(
            plain(&map, &hosts, false),
            Some(McpHeaders {
                per_request: true,
                method: Some("tools/call"),
                name: Some("t"),
                version: Some("2026-07-28"),
            })
        );
        assert!(!with(&per_request[..1]), "2026-07-28 without Mcp-Method");
        assert!(
            !with(&[per_request[0], per_request[1], per_request[1]]),
            "Mcp-Method twice"
        );
        assert!(!with(&[
            per_request[0],
            per_request[1],
            ("mcp-param-x", "1")
        ]));
        let only_json = [base[0], base[1], ("accept", "application/json")];
        assert!(plain(&headers(&only_json), &hosts, false).is_none());
        let text_body = [base[0], ("content-type", "text/plain"), base[2]];
        assert!(plain(&headers(&text_body), &hosts, false).is_none());
        // A session's request, where the server keeps them; not one of 2026-07-28.
        let mut in_session = base.to_vec();
        in_session.push(("mcp-session-id", "abc"));
        assert!(plain(&headers(&in_session), &hosts, true).is_some());
        in_session.extend_from_slice(&per_request);
        assert!(plain(&headers(&in_session), &hosts, true).is_none());
        assert!(host_allowed("LOCALHOST:1", &hosts));
        assert!(host_allowed("10.0.0.1:80", &hosts));
        assert!(!host_allowed("10.0.0.1:81", &hosts));
        assert!(!host_allowed("127.0.0.1.evil:80", &hosts));
        assert!(!host_allowed("127.0.0.1:", &hosts));
        assert!(!host_allowed("evil.com", &hosts));
    }
}
