//! The sessions' `GET` streams this replica holds, and the subscriptions that follow them.
//! A client subscribes to a resource with a POST, which may reach another replica than the
//! one holding its session's `GET` stream, where notifications go. With replicas sharing
//! sessions, a session's subscriptions are in its record (`shared.rs`); the replica that
//! holds its `GET` stream keeps its own rmcp session subscribed to them (`resources/subscribe`
//! and `unsubscribe` of the stream's caller, asked here), brought in line with the record
//! when the stream opens, when another replica tells of a change, and (to none) when the
//! last stream here closes: one session's changes one at a time, in order. A change a tool
//! reports on any replica is told to every replica (`server/subscriptions/shared.rs`), so it
//! is heard on the stream.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::response::Response;
use futures::StreamExt;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::Sessions;
use super::shared::Shared;
use crate::context::Caller;

/// How long a subscription asked here may take to be answered.
const ASK_TIMEOUT: Duration = Duration::from_secs(5);

/// Numbers the requests asked here (each id unique in the process).
static ASKED: AtomicU64 = AtomicU64::new(0);

/// One session's stream here.
struct Stream {
    /// How many of its `GET` streams are open here.
    open: usize,
    /// The caller of the last one opened: the subscriptions are asked as them.
    caller: Caller,
    /// The URIs its rmcp session here is subscribed to by this replica.
    subscribed: BTreeSet<String>,
    /// Held while its subscriptions are brought in line: one change at a time.
    turn: Arc<tokio::sync::Mutex<()>>,
}

type Map = Arc<Mutex<HashMap<String, Stream>>>;

/// The sessions with a `GET` stream here.
#[derive(Default)]
pub(super) struct Streams(Map);

fn lock(map: &Map) -> MutexGuard<'_, HashMap<String, Stream>> {
    map.lock().unwrap_or_else(|e| e.into_inner())
}

impl Streams {
    /// Whether session `id` has a stream here.
    pub(super) fn here(&self, id: &str) -> bool {
        lock(&self.0).get(id).is_some_and(|stream| stream.open > 0)
    }

    /// Session `id` has a stream here (opened by `caller`) until the guard is dropped.
    fn open(&self, id: &str, caller: Caller, sync: Sync) -> Open {
        let mut map = lock(&self.0);
        let stream = map.entry(id.to_owned()).or_insert_with(|| Stream {
            open: 0,
            caller: caller.clone(),
            subscribed: BTreeSet::new(),
            turn: Arc::default(),
        });
        stream.open += 1;
        stream.caller = caller;
        Open {
            id: id.to_owned(),
            sync,
        }
    }

    /// `uri` was subscribed to here by the client's own request, while its stream is here.
    fn subscribed(&self, id: &str, uri: &str) {
        if let Some(stream) = lock(&self.0).get_mut(id) {
            stream.subscribed.insert(uri.to_owned());
        }
    }
}

/// What brings a session's subscriptions here in line with its record.
#[derive(Clone)]
struct Sync {
    streams: Map,
    manager: Arc<LocalSessionManager>,
    shared: Arc<Shared>,
    /// The serving runtime (a guard may be dropped where none is current).
    runtime: tokio::runtime::Handle,
}

impl Sync {
    /// Brings session `id`'s subscriptions here in line (in the background): those of its
    /// record while its stream is here, none once it is not.
    fn run(&self, id: String) {
        let sync = self.clone();
        self.runtime.spawn(async move { sync.align(&id).await });
    }

    async fn align(&self, id: &str) {
        let Some(turn) = lock(&self.streams).get(id).map(|s| s.turn.clone()) else {
            return;
        };
        let _turn = turn.lock().await;
        let open = lock(&self.streams).get(id).is_some_and(|s| s.open > 0);
        let wanted = match open {
            true => match self.shared.load(id).await {
                Ok(Some(record)) => record.subscriptions,
                Ok(None) => BTreeSet::new(),
                // The store failed: what is subscribed here stays as it is.
                Err(_) => return,
            },
            false => BTreeSet::new(),
        };
        let Some((caller, have)) = lock(&self.streams)
            .get(id)
            .map(|s| (s.caller.clone(), s.subscribed.clone()))
        else {
            return;
        };
        for (uri, on) in wanted
            .difference(&have)
            .map(|uri| (uri, true))
            .chain(have.difference(&wanted).map(|uri| (uri, false)))
        {
            if ask(&self.manager, id, &caller, uri, on).await {
                let mut map = lock(&self.streams);
                if let Some(stream) = map.get_mut(id) {
                    match on {
                        true => stream.subscribed.insert(uri.clone()),
                        false => stream.subscribed.remove(uri),
                    };
                }
            }
        }
        let mut map = lock(&self.streams);
        if map
            .get(id)
            .is_some_and(|s| s.open == 0 && s.subscribed.is_empty())
        {
            map.remove(id);
        }
    }
}

/// A stream open here, until its response is done.
struct Open {
    id: String,
    sync: Sync,
}

impl Drop for Open {
    fn drop(&mut self) {
        let last = {
            let mut map = lock(&self.sync.streams);
            match map.get_mut(&self.id) {
                Some(stream) => {
                    stream.open -= 1;
                    stream.open == 0
                }
                None => false,
            }
        };
        if last {
            self.sync.run(std::mem::take(&mut self.id));
        }
    }
}

impl Sessions {
    fn sync(&self) -> Option<Sync> {
        Some(Sync {
            streams: self.streams.0.clone(),
            manager: self.manager.clone(),
            shared: self.shared.clone()?,
            runtime: tokio::runtime::Handle::try_current().ok()?,
        })
    }

    /// `response` opened session `id`'s `GET` stream here, for `caller`: kept as open until
    /// it is done, and the session subscribed here to what its record says.
    pub(super) fn streaming(&self, id: &str, caller: Caller, response: Response) -> Response {
        let stream = response.status().is_success()
            && response
                .headers()
                .get(axum::http::header::CONTENT_TYPE)
                .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
        let Some(sync) = self.sync().filter(|_| stream) else {
            return response;
        };
        let open = self.streams.open(id, caller, sync.clone());
        sync.run(id.to_owned());
        super::super::body::holding(response, open)
    }

    /// Another replica told that session `id`'s subscriptions changed: followed here when
    /// its stream is here.
    pub(super) fn subscribed_elsewhere(&self, id: &str) {
        if self.streams.here(id)
            && let Some(sync) = self.sync()
        {
            sync.run(id.to_owned());
        }
    }

    /// Session `id` subscribed to `uri` here (`response` is rmcp's answer). With its stream
    /// here, that is the subscription of the stream; without, it is dropped once answered
    /// (after the subscription, then), since what rmcp would send for it would wait in the
    /// session's channel here and reach the client late and twice, should its stream come
    /// here later (which then subscribes anew).
    pub(super) fn subscribed_here(
        &self,
        id: &str,
        caller: Caller,
        uri: String,
        response: Response,
    ) -> Response {
        if self.streams.here(id) {
            self.streams.subscribed(id, &uri);
            return response;
        }
        let Some(sync) = self.sync() else {
            return response;
        };
        let not_here = NotHere {
            sync,
            id: id.to_owned(),
            caller,
            uri,
        };
        super::super::body::holding(response, not_here)
    }
}

/// A subscription made here without the session's stream, dropped once answered.
struct NotHere {
    sync: Sync,
    id: String,
    caller: Caller,
    uri: String,
}

impl Drop for NotHere {
    fn drop(&mut self) {
        let here = lock(&self.sync.streams)
            .get(&self.id)
            .is_some_and(|s| s.open > 0);
        if here {
            return;
        }
        let sync = self.sync.clone();
        let (id, uri, caller) = (
            std::mem::take(&mut self.id),
            std::mem::take(&mut self.uri),
            self.caller.clone(),
        );
        self.sync.runtime.spawn(async move {
            ask(&sync.manager, &id, &caller, &uri, false).await;
        });
    }
}

/// Asks rmcp's session `id` here to subscribe (`on`) to `uri`, or to unsubscribe, as
/// `caller`: whether it did (a refusal, or no answer in time, is logged).
async fn ask(
    manager: &LocalSessionManager,
    id: &str,
    caller: &Caller,
    uri: &str,
    on: bool,
) -> bool {
    let method = match on {
        true => "resources/subscribe",
        false => "resources/unsubscribe",
    };
    let n = ASKED.fetch_add(1, Ordering::Relaxed);
    let frame = serde_json::json!({
        "jsonrpc": "2.0",
        "id": format!("toolsmith-followed-{n}"),
        "method": method,
        "params": {"uri": uri},
    });
    let Ok(mut message) = serde_json::from_value::<ClientJsonRpcMessage>(frame) else {
        return false;
    };
    if let ClientJsonRpcMessage::Request(request) = &mut message {
        let (mut parts, ()) = axum::http::Request::new(()).into_parts();
        parts.extensions.insert(caller.clone());
        request.request.extensions_mut().insert(parts);
    }
    let session: rmcp::transport::common::server_side_http::SessionId = id.into();
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
    match tokio::time::timeout(ASK_TIMEOUT, answered).await {
        Ok(Some(answer)) if !is_error(&answer) => {
            tracing::debug!(
                session = id,
                uri,
                method,
                "a subscription followed its session's stream"
            );
            true
        }
        Ok(Some(_)) => {
            tracing::warn!(
                session = id,
                uri,
                method,
                "a followed subscription was refused"
            );
            false
        }
        _ => {
            tracing::warn!(
                session = id,
                uri,
                method,
                "a followed subscription got no answer"
            );
            false
        }
    }
}

/// Whether an answer is an error.
fn is_error(message: &rmcp::model::ServerJsonRpcMessage) -> bool {
    matches!(message, rmcp::model::ServerJsonRpcMessage::Error(_))
}
