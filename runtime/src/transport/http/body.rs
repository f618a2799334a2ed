//! Responses the edge makes: a body that holds something (a connection's busy mark, a
//! session's request id) until it is written whole or dropped, and a JSON-RPC error.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

/// `response`, holding `guard` until its body is done.
pub(super) fn holding<G: Send + Unpin + 'static>(response: Response, guard: G) -> Response {
    response.map(|body| {
        Body::new(Holding {
            body,
            _guard: guard,
        })
    })
}

struct Holding<G> {
    body: Body,
    _guard: G,
}

impl<G: Send + Unpin + 'static> HttpBody for Holding<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A JSON-RPC error as an HTTP response; `id` is the request's raw JSON id (null when none).
pub(super) fn json_error(
    status: StatusCode,
    id: Option<&str>,
    code: i32,
    message: &str,
) -> Response {
    let id: serde_json::Value = id
        .and_then(|id| serde_json::from_str(id).ok())
        .unwrap_or(serde_json::Value::Null);
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
