//! A POST's body, read whole before anything looks at it: within the server's limit and its
//! time (the one place both are enforced), without a UTF-8 byte order mark.

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::Response;
use futures::FutureExt;

use super::Edge;
use super::refused::refused;

/// The body, or the refusal the client gets: 413 over `max_body` bytes, 408 past
/// `body_timeout`, 400 for one that breaks off.
pub(super) async fn body(body: Body, edge: &Edge) -> Result<Bytes, Response> {
    let mut read = std::pin::pin!(axum::body::to_bytes(body, edge.max_body));
    // A small body usually arrives whole with its head: read then, without a timer.
    let read = match read.as_mut().now_or_never() {
        Some(read) => Ok(read),
        None => tokio::time::timeout(edge.body_timeout, read).await,
    };
    let bytes = match read {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(err)) if over_limit(&err) => {
            return Err(refused(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is over the server's limit",
            ));
        }
        Ok(Err(_)) => {
            return Err(refused(
                StatusCode::BAD_REQUEST,
                "the request body could not be read",
            ));
        }
        Err(_) => {
            return Err(refused(
                StatusCode::REQUEST_TIMEOUT,
                "the request body did not arrive in time",
            ));
        }
    };
    // A UTF-8 byte order mark is no part of the JSON (stdio takes it too).
    Ok(match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(_) => bytes.slice(3..),
        None => bytes,
    })
}

/// Whether reading a body failed for its size (not a broken encoding or a reset).
fn over_limit(err: &axum::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(err) = cause {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        cause = err.source();
    }
    false
}
