//! HTML pages served beside the MCP endpoint (feature `http`): text made safe for HTML, and
//! a response no other site may frame, no cache keeps and no script runs in. The server's
//! own pages (the sign-in's consent page, the approvals page) are made with them, and a
//! program's own pages ([`Server::http_routes`](crate::Server::http_routes)) may be too.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

/// `text` for HTML: in an element's text or a quoted attribute.
///
/// ```
/// assert_eq!(
///     toolsmith::html::escape(r#"<a href="x">Tom & 'Jerry'</a>"#),
///     "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;",
/// );
/// ```
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The page `html` (a whole document, every value in it [`escape`]d) with `status`: no
/// script runs in it (its only style inline), no other site frames it, no cache keeps it,
/// and a link in it sends no `Referer`.
///
/// ```
/// use toolsmith::axum::http::StatusCode;
/// use toolsmith::html::{escape, page};
///
/// let who = "<script>";
/// let response = page(StatusCode::OK, format!("<!doctype html><p>Hello {}</p>", escape(who)));
/// let headers = response.headers();
/// assert_eq!(headers["content-type"], "text/html; charset=utf-8");
/// assert_eq!(headers["x-frame-options"], "DENY");
/// assert_eq!(headers["cache-control"], "no-store");
/// assert!(headers["content-security-policy"].to_str().unwrap().contains("default-src 'none'"));
/// ```
pub fn page(status: StatusCode, html: String) -> Response {
    let mut response = Response::new(Body::from(html));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
