//! The fast path for the requests that make up nearly all traffic: a stateless
//! `tools/call` or `tools/list` whose headers are plainly acceptable is answered by the
//! server directly, as one JSON body (or one event), instead of through rmcp's per-request
//! service. What the fast path does not plainly accept (an `Origin`, an unusual `Host`, a protocol revision
//! with per-request headers, a request asking for progress, ...) goes to rmcp, which checks
//! it in full and answers it.

use std::future::Future;
use std::pin::Pin;

use axum::body::Body as HttpBody;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;

use super::CallEvents;
use crate::Caller;

/// A JSON-RPC response body, once the request is answered.
pub(crate) type Body = Pin<Box<dyn Future<Output = Vec<u8>> + Send>>;

/// What the server answers itself (given to [`serve`](super::serve)).
pub(crate) trait FastPath: Send + Sync + 'static {
    /// The answer to a POSTed JSON-RPC message, or `None` for rmcp to serve it (decided
    /// before anything runs); a call's notifications go to `events`, when given.
    fn answer(&self, body: &[u8], caller: Caller, events: Option<CallEvents>) -> Option<Body>;
}

/// The revisions whose requests carry no per-request headers to check against the body
/// (those from 2026-07-28 on do; rmcp checks them). No header means 2025-03-26.
const PLAIN_REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Whether a POST's headers are ones rmcp would plainly accept: `Accept` names JSON and
/// SSE, `Content-Type` is JSON, the protocol revision is one of [`PLAIN_REVISIONS`] (or
/// none), no `Origin`, no session or per-request MCP headers, and `Host` is one of `hosts`
/// exactly (or with a port, for an entry without one).
pub(super) fn plain(headers: &HeaderMap, hosts: &[String]) -> bool {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    if headers.contains_key(header::ORIGIN)
        || headers.contains_key("mcp-session-id")
        || headers.contains_key("mcp-method")
        || headers.contains_key("mcp-name")
        || headers.contains_key("last-event-id")
    {
        return false;
    }
    let revision_ok = match headers.get("mcp-protocol-version") {
        None => true,
        Some(v) => v.to_str().is_ok_and(|v| PLAIN_REVISIONS.contains(&v)),
    };
    let json_body = text(header::CONTENT_TYPE).is_some_and(|t| {
        t.split(';')
            .next()
            .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
    });
    let json = accepts(headers, "application/json");
    let sse = accepts(headers, "text/event-stream");
    let host_ok = text(header::HOST).is_some_and(|host| host_allowed(host, hosts));
    revision_ok && json_body && json && sse && host_ok
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

/// The HTTP response carrying `message`: a JSON body, or (`sse`) a stream of that one event,
/// with the headers rmcp sends.
pub(super) fn respond(message: Vec<u8>, sse: bool) -> Response {
    if !sse {
        let mut response = Response::new(HttpBody::from(message));
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
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// `host` is an allowed entry, or an entry without a port followed by `:<port>`.
fn host_allowed(host: &str, hosts: &[String]) -> bool {
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

    use super::{host_allowed, plain};

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
        assert!(plain(&headers(&base), &hosts));
        let with = |extra: (&'static str, &'static str)| {
            let mut all = base.to_vec();
            all.push(extra);
            plain(&headers(&all), &hosts)
        };
        assert!(with(("mcp-protocol-version", "2025-11-25")));
        assert!(!with(("mcp-protocol-version", "2026-07-28")));
        assert!(!with(("mcp-protocol-version", "1999-01-01")));
        assert!(!with(("origin", "http://localhost:3000")));
        assert!(!with(("mcp-session-id", "abc")));
        let only_json = [base[0], base[1], ("accept", "application/json")];
        assert!(!plain(&headers(&only_json), &hosts));
        let text_body = [base[0], ("content-type", "text/plain"), base[2]];
        assert!(!plain(&headers(&text_body), &hosts));
        assert!(host_allowed("LOCALHOST:1", &hosts));
        assert!(host_allowed("10.0.0.1:80", &hosts));
        assert!(!host_allowed("10.0.0.1:81", &hosts));
        assert!(!host_allowed("127.0.0.1.evil:80", &hosts));
        assert!(!host_allowed("127.0.0.1:", &hosts));
        assert!(!host_allowed("evil.com", &hosts));
    }
}
