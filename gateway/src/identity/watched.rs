//! The HTTP client of a caller's session at an upstream, which notes that the upstream
//! refused its token (401): rmcp's client reports a refused request as a lost transport,
//! and the pool must tell the two apart to get a fresh token instead of failing the call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::{Error as SseError, Sse};

/// That the upstream answered 401, with its `WWW-Authenticate` challenge.
#[derive(Clone, Debug, Default)]
pub(crate) struct Refusal(Arc<Mutex<Option<String>>>);

impl Refusal {
    /// The challenge of the last 401, if one came (taken: asked again, it is gone).
    pub(crate) fn take(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    fn note<T>(&self, answer: &Result<T, StreamableHttpError<reqwest::Error>>) {
        if let Err(StreamableHttpError::AuthRequired(refused)) = answer {
            *self.0.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(refused.www_authenticate_header.clone());
        }
    }
}

/// A reqwest client whose 401s are noted in its [`Refusal`].
#[derive(Clone)]
pub(crate) struct Watched {
    pub(crate) client: reqwest::Client,
    pub(crate) refusal: Refusal,
}

type Posted = Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>>;
type Streamed =
    Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<reqwest::Error>>;

impl StreamableHttpClient for Watched {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Posted {
        let answer = self
            .client
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        self.refusal.note(&answer);
        answer
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Posted {
        let answer = self
            .client
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.refusal.note(&answer);
        answer
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Posted {
        let answer = self
            .client
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        self.refusal.note(&answer);
        answer
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<reqwest::Error>> {
        self.client
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Streamed {
        let answer = self
            .client
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        self.refusal.note(&answer);
        answer
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Streamed {
        let answer = self
            .client
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.refusal.note(&answer);
        answer
    }
}
