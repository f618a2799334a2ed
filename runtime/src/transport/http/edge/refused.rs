//! What the edge answers itself when it refuses a request: one it could not read, or whose
//! message rmcp would misread.

use axum::http::{StatusCode, header};
use axum::response::Response;

use super::super::body;

/// The answer to a message the transport could not hand to rmcp: 400 for one that is not
/// JSON-RPC (`-32700`, `-32600`), 200 for a request whose params do not fit (`-32602`, a
/// JSON-RPC error like any other).
pub(super) fn decode_error(
    error: rmcp::model::ErrorData,
    id: Option<rmcp::model::RequestId>,
) -> Response {
    let status = match error.code {
        rmcp::model::ErrorCode::INVALID_PARAMS => StatusCode::OK,
        _ => StatusCode::BAD_REQUEST,
    };
    let id = id.and_then(|id| serde_json::to_string(&id).ok());
    body::json_error(status, id.as_deref(), error.code.0, &error.message)
}

/// A request refused before it was read whole: `status`, with a JSON-RPC error (the client
/// expects a JSON-RPC answer), and the connection closed (the rest of the body would be
/// taken for the next request).
pub(super) fn refused(status: StatusCode, why: &str) -> Response {
    let mut response = body::json_error(status, None, -32600, &format!("Invalid Request: {why}"));
    response.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    response
}
