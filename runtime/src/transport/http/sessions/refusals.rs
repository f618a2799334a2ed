//! What the sessions' screen answers when it refuses a request, or answers it itself.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

/// What a client past the cap is told to wait before it tries again, in seconds.
const RETRY_AFTER: &str = "5";

/// A `DELETE` of a session the server ended itself.
pub(super) fn no_content() -> Response {
    let mut response = Response::new(axum::body::Body::empty());
    *response.status_mut() = StatusCode::NO_CONTENT;
    response
}

/// The shared store failed while a request of a session needed it.
pub(in crate::transport::http) fn store_failed() -> Response {
    let mut response = super::super::body::json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        -32000,
        "the store the replicas keep their sessions in failed; try again",
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// A session that does not exist (or is not the caller's).
pub(super) fn not_found() -> Response {
    super::super::body::json_error(StatusCode::NOT_FOUND, None, -32600, "Session not found")
}

/// An `initialize` past the cap.
pub(super) fn full() -> Response {
    let mut response = super::super::body::json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        -32000,
        "the server has as many sessions open as it allows; try again later",
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER));
    response
}

/// A request whose id is in flight in its session already.
pub(super) fn id_in_use(id: &str) -> Response {
    let message = format!(
        "Invalid Request: id {id} is already in use by a request in flight in this session"
    );
    super::super::body::json_error(StatusCode::OK, Some(id), -32600, &message)
}
