//! The sessions' `GET` streams this replica holds, and the subscriptions that follow them.
//! A client subscribes to a resource with a POST, which may reach another replica than the
//! one holding its session's `GET` stream, where notifications go. With replicas sharing
//! sessions, a session's subscriptions are in its record (`shared.rs`); the replica that
//! holds its `GET` stream subscribes its own rmcp session to them (a `resources/subscribe`
//! of the session's caller, replayed), when the stream opens and when a subscription is
//! told, so that a change reported on any replica (`server/subscriptions/shared.rs`) is
//! heard on the stream.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::response::Response;
use futures::StreamExt;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::Sessions;
use crate::context::Caller;

/// How long a replayed subscription may take to be answered.
const REPLAY_TIMEOUT: Duration = Duration::from_secs(5);

/// The sessions with a `GET` stream here: how many, and the caller that opened them.
#[derive(Default)]
pub(super) struct Streams(Arc<Mutex<HashMap<String, (usize, Caller)>>>);

impl Streams {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, (usize, Caller)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The caller of session `id`'s stream here, if it has one.
    pub(super) fn caller(&self, id: &str) -> Option<Caller> {
        self.lock().get(id).map(|(_, caller)| caller.clone())
    }

    /// Session `id` has a stream here until the guard returned is dropped.
    fn open(&self, id: &str, caller: Caller) -> Open {
        let mut streams = self.lock();
        let entry = streams.entry(id.to_owned()).or_insert((0, caller));
        entry.0 += 1;
        Open {
            streams: self.0.clone(),
            id: id.to_owned(),
        }
    }
}

/// A stream open here, until its response is done.
struct Open {
    streams: Arc<Mutex<HashMap<String, (usize, Caller)>>>,
    id: String,
}

impl Drop for Open {
    fn drop(&mut self) {
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = streams.get_mut(&self.id) {
            entry.0 -= 1;
            if entry.0 == 0 {
                streams.remove(&self.id);
            }
        }
    }
}

impl Sessions {
    /// `response` opened session `id`'s `GET` stream here, for `caller`: kept as open until
    /// it is done, and the session subscribed here to what its record says.
    pub(super) async fn streaming(&self, id: &str, caller: Caller, response: Response) -> Response {
        let stream = response.status().is_success()
            && response
                .headers()
                .get(axum::http::header::CONTENT_TYPE)
                .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
        let Some(shared) = self.shared.as_ref().filter(|_| stream) else {
            return response;
        };
        let open = self.streams.open(id, caller.clone());
        if let Ok(Some(record)) = shared.load(id).await
            && !record.subscriptions.is_empty()
        {
            let uris = record.subscriptions.into_iter().collect();
            replay(self.manager.clone(), id.to_owned(), caller, uris, true);
        }
        super::super::body::holding(response, open)
    }

    /// Session `id` subscribed to `uri` here (`response` is rmcp's answer): kept here only
    /// while its stream is here. Without it, what rmcp would send for the subscription
    /// waits in the session's channel here and reaches the client late and twice, should
    /// its stream come here later (which then subscribes anew). Unsubscribed once the
    /// answer is written, so that the unsubscription comes after the subscription.
    pub(super) fn subscribed_here(
        &self,
        id: &str,
        caller: Caller,
        uri: String,
        response: Response,
    ) -> Response {
        let not_here = NotHere {
            streams: self.streams.0.clone(),
            manager: self.manager.clone(),
            id: id.to_owned(),
            caller,
            uri,
        };
        super::super::body::holding(response, not_here)
    }

    /// Another replica told that session `id` subscribed to `uri` (`on`) or unsubscribed:
    /// followed here when its stream is here.
    pub(super) fn subscribed_elsewhere(&self, id: &str, uri: String, on: bool) {
        if let Some(caller) = self.streams.caller(id) {
            replay(self.manager.clone(), id.to_owned(), caller, vec![uri], on);
        }
    }
}

/// A subscription made here, dropped here once answered unless the session's stream is
/// here.
struct NotHere {
    streams: Arc<Mutex<HashMap<String, (usize, Caller)>>>,
    manager: Arc<LocalSessionManager>,
    id: String,
    caller: Caller,
    uri: String,
}

impl Drop for NotHere {
    fn drop(&mut self) {
        let here = {
            let streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
            streams.contains_key(&self.id)
        };
        if !here && tokio::runtime::Handle::try_current().is_ok() {
            let (id, uri) = (std::mem::take(&mut self.id), std::mem::take(&mut self.uri));
            replay(
                self.manager.clone(),
                id,
                self.caller.clone(),
                vec![uri],
                false,
            );
        }
    }
}

/// Subscribes (`on`) or unsubscribes rmcp's session `id` here to each of `uris`, as
/// `caller` (in the background; a refusal is logged).
fn replay(
    manager: Arc<LocalSessionManager>,
    id: String,
    caller: Caller,
    uris: Vec<String>,
    on: bool,
) {
    let method = match on {
        true => "resources/subscribe",
        false => "resources/unsubscribe",
    };
    tokio::spawn(async move {
        let session: rmcp::transport::common::server_side_http::SessionId = id.as_str().into();
        for (n, uri) in uris.into_iter().enumerate() {
            let frame = serde_json::json!({
                "jsonrpc": "2.0",
                "id": format!("toolsmith-replayed-{n}"),
                "method": method,
                "params": {"uri": uri},
            });
            let Ok(mut message) = serde_json::from_value::<ClientJsonRpcMessage>(frame) else {
                continue;
            };
            if let ClientJsonRpcMessage::Request(request) = &mut message {
                let (mut parts, ()) = axum::http::Request::new(()).into_parts();
                parts.extensions.insert(caller.clone());
                request.request.extensions_mut().insert(parts);
            }
            let answered = async {
                let mut answers = manager.create_stream(&session, message).await.ok()?;
                // Past a priming event (no message), the answer.
                while let Some(event) = answers.next().await {
                    if let Some(answer) = event.message {
                        return Some(answer);
                    }
                }
                None
            };
            match tokio::time::timeout(REPLAY_TIMEOUT, answered).await {
                Ok(Some(answer)) if is_error(&answer) => {
                    tracing::warn!(
                        session = id,
                        uri,
                        method,
                        "a replayed subscription was refused"
                    );
                }
                Ok(Some(_)) => tracing::debug!(
                    session = id,
                    uri,
                    method,
                    "a subscription followed its session's stream"
                ),
                _ => tracing::warn!(
                    session = id,
                    uri,
                    method,
                    "a replayed subscription got no answer"
                ),
            }
        }
    });
}

/// Whether an answer is an error.
fn is_error(message: &rmcp::model::ServerJsonRpcMessage) -> bool {
    matches!(message, rmcp::model::ServerJsonRpcMessage::Error(_))
}
