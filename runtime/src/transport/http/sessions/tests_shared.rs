//! Replicas sharing a store: two (or three) `Sessions` in one process over one store that
//! passes messages between them, as Redis does between processes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::http::Method;
use rmcp::model::InitializeRequestParams;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::sync::{broadcast, mpsc};

use super::super::{Admission, Answer, SessionRoute, Sessions};
use super::{Probe, naming, open};
use crate::context::Caller;
use crate::task::{
    MemoryStore, Messages, StoreError, StoreFuture, TaskEnd, TaskProgress, TaskRecord, TaskStore,
};
use crate::transport::http::{Adopter, SessionCore};

/// A store every replica of a test shares: its state a [`MemoryStore`]'s, its channels one
/// broadcast.
struct SharedStore {
    memory: MemoryStore,
    channel: broadcast::Sender<String>,
    /// Every read and publish fails (Redis unreachable).
    failing: AtomicBool,
    /// Every read takes a while (a store across the network), so that changes interleave.
    slow: AtomicBool,
}

impl SharedStore {
    fn new() -> Arc<SharedStore> {
        Arc::new(SharedStore {
            memory: MemoryStore::new(),
            channel: broadcast::channel(64).0,
            failing: AtomicBool::new(false),
            slow: AtomicBool::new(false),
        })
    }
}

impl TaskStore for SharedStore {
    fn create<'a>(&'a self, task: &'a TaskRecord, lease: Duration) -> StoreFuture<'a, ()> {
        self.memory.create(task, lease)
    }
    fn get<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        self.memory.get(id, now_ms)
    }
    fn renew<'a>(&'a self, id: &'a str, lease: Duration) -> StoreFuture<'a, bool> {
        self.memory.renew(id, lease)
    }
    fn progress<'a>(
        &'a self,
        id: &'a str,
        progress: &'a TaskProgress,
        now_ms: u64,
    ) -> StoreFuture<'a, ()> {
        self.memory.progress(id, progress, now_ms)
    }
    fn finish<'a>(&'a self, id: &'a str, end: &'a TaskEnd) -> StoreFuture<'a, bool> {
        self.memory.finish(id, end)
    }
    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        self.memory.put(key, value, ttl)
    }
    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        self.memory.put_new(key, value, ttl)
    }
    fn read<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        if self.failing.load(Ordering::Relaxed) {
            return Box::pin(std::future::ready(Err(StoreError::new("unreachable"))));
        }
        if self.slow.load(Ordering::Relaxed) {
            // Read now, answered later: what another replica writes meanwhile is not in it.
            return Box::pin(async move {
                let read = self.memory.read(key).await;
                tokio::time::sleep(Duration::from_millis(3)).await;
                read
            });
        }
        self.memory.read(key)
    }
    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        self.memory.take(key)
    }
    fn publish<'a>(&'a self, channel: &'a str, message: &'a str) -> StoreFuture<'a, bool> {
        if self.failing.load(Ordering::Relaxed) {
            return Box::pin(std::future::ready(Err(StoreError::new("unreachable"))));
        }
        let _ = self.channel.send(format!("{channel} {message}"));
        Box::pin(std::future::ready(Ok(true)))
    }
    fn listen<'a>(&'a self, channel: &'a str) -> StoreFuture<'a, Option<Messages>> {
        let mut heard = self.channel.subscribe();
        let (sender, receiver) = mpsc::channel(64);
        let prefix = format!("{channel} ");
        tokio::spawn(async move {
            while let Ok(message) = heard.recv().await {
                if let Some(message) = message.strip_prefix(&prefix)
                    && sender.send(message.to_owned()).await.is_err()
                {
                    return;
                }
            }
        });
        Box::pin(std::future::ready(Ok(Some(receiver))))
    }
}

/// What the server's fast path does when a session is adopted: the state it makes is a [`Probe`] (kept,
/// to look at), at the level the record says.
#[derive(Default)]
struct Adopting(std::sync::Mutex<Vec<Arc<Probe>>>);

impl Adopter for Adopting {
    fn adopt(&self, _: &InitializeRequestParams, level: Option<&str>) -> Option<SessionCore> {
        let probe = Arc::new(Probe::default());
        if let Some(level) = level {
            super::Session::set_level(&*probe, level);
        }
        self.0.lock().unwrap().push(probe.clone());
        Some(probe)
    }
}

/// A replica sharing `store`, and what it adopts.
async fn replica(store: &Arc<SharedStore>) -> (Arc<Sessions>, Arc<Adopting>) {
    let adopter = Arc::new(Adopting::default());
    let manager = Arc::new(LocalSessionManager::default());
    let store: Arc<dyn TaskStore> = store.clone();
    let adopting: Arc<dyn Adopter> = adopter.clone();
    let sessions = Sessions::new(manager, 10, Some(store), Some(adopting)).await;
    (sessions.unwrap(), adopter)
}

async fn screen(sessions: &Sessions, method: Method, id: &str, caller: &Caller) -> Admission {
    let found = sessions
        .screen(&method, &naming(id), Some(caller), None)
        .await;
    found.unwrap_or_else(|refused| panic!("refused: {}", refused.status()))
}

/// The status a request for session `id` is refused with (`None`: let through).
async fn refused(sessions: &Sessions, method: Method, id: &str, caller: &Caller) -> Option<u16> {
    let found = sessions
        .screen(&method, &naming(id), Some(caller), None)
        .await;
    found.err().map(|refused| refused.status().as_u16())
}

/// Waits (bounded) until `done` holds: what another replica tells arrives in the background.
async fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{what}: not within 1 s");
}

#[tokio::test]
async fn a_session_opened_on_one_replica_is_served_by_another_for_its_owner_only() {
    let store = SharedStore::new();
    let ((one, _), (other, adopted)) = (replica(&store).await, replica(&store).await);
    let alice = Caller::new("alice", ["tools:read"]);
    let id = open(&one, &alice, Arc::new(Probe::default())).await;

    // Someone else asks the other replica for it: as if it did not exist.
    let bob = Caller::new("bob", ["tools:read"]);
    let bob_asks = refused(&other, Method::POST, &id, &bob).await;
    assert_eq!(bob_asks, Some(404));
    assert!(adopted.0.lock().unwrap().is_empty(), "nothing made for him");
    // Its owner: served there, by the server's state made from the record.
    let admission = screen(&other, Method::POST, &id, &alice).await;
    assert!(matches!(admission.route, Some(SessionRoute::Fast(..))));
    assert_eq!(adopted.0.lock().unwrap().len(), 1);
    // Once only: the next request finds it there.
    screen(&other, Method::GET, &id, &alice).await;
    assert_eq!(adopted.0.lock().unwrap().len(), 1);
    // A session no replica opened is none.
    let unknown = refused(&other, Method::POST, "no-such-session", &alice).await;
    assert_eq!(unknown, Some(404));
}

#[tokio::test]
async fn a_level_set_and_an_end_on_one_replica_reach_the_others() {
    let store = SharedStore::new();
    let (one, _) = replica(&store).await;
    let (other, adopted) = replica(&store).await;
    let alice = Caller::new("alice", ["tools:read"]);
    let opened = Arc::new(Probe::default());
    let id = open(&one, &alice, opened.clone()).await;
    screen(&other, Method::POST, &id, &alice).await;

    // `logging/setLevel` answered on the other replica: the first one's state hears it, and
    // a replica adopting the session later starts at that level.
    let mut admission = screen(&other, Method::POST, &id, &alice).await;
    other.setting_level(&mut admission, &id, "debug".to_owned());
    let answered = axum::response::Response::new(axum::body::Body::empty());
    other.finish(admission, answered).await;
    until("the level reached the first replica", || {
        opened.1.lock().unwrap().as_deref() == Some("debug")
    })
    .await;
    let (third, late) = replica(&store).await;
    screen(&third, Method::POST, &id, &alice).await;
    let late = late.0.lock().unwrap()[0].clone();
    assert_eq!(late.1.lock().unwrap().as_deref(), Some("debug"));

    // Its DELETE on the first replica ends it on the others too, and it is gone for all.
    let ended = refused(&one, Method::DELETE, &id, &alice).await;
    assert_eq!(ended, Some(204));
    let adopted = adopted.0.lock().unwrap()[0].clone();
    until("the end reached the other replicas", || {
        adopted.0.load(Ordering::Relaxed) && late.0.load(Ordering::Relaxed)
    })
    .await;
    assert!(!other.opened.contains(&id) && !third.opened.contains(&id));
    let (fourth, _) = replica(&store).await;
    let gone = refused(&fourth, Method::POST, &id, &alice).await;
    assert_eq!(gone, Some(404));
}

#[tokio::test]
async fn an_answer_goes_to_the_replica_whose_question_it_answers() {
    let store = SharedStore::new();
    let ((one, _), (other, _)) = (replica(&store).await, replica(&store).await);
    let alice = Caller::new("alice", ["tools:read"]);
    let id = open(&one, &alice, Arc::new(Probe::default())).await;
    let mut heard = store.listen("sessions").await.unwrap().unwrap();
    let tag = one.shared.as_ref().unwrap().tag().to_owned();
    let answer = |id: serde_json::Value| {
        let frame = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept"}});
        serde_json::to_vec(&frame).unwrap()
    };
    let asked_by_one = answer(format!("{tag}:0").into());

    // On the replica that asked: on to rmcp there, under the id rmcp gave the question.
    let admission = screen(&one, Method::POST, &id, &alice).await;
    let Answer::Onward(Some(restored)) = one.answered(&id, &asked_by_one, None).await else {
        panic!("on to rmcp on the replica that asked");
    };
    let restored: serde_json::Value = serde_json::from_slice(&restored).unwrap();
    assert_eq!(restored["id"], 0);
    assert_eq!(restored["result"]["action"], "accept");

    // On another: accepted there, and told to every replica (the one that asked takes it).
    let route = screen(&other, Method::POST, &id, &alice).await.route;
    let taken = other.answered(&id, &asked_by_one, route.as_ref()).await;
    assert_eq!(taken, Answer::Accepted);
    let told = tokio::time::timeout(Duration::from_secs(1), heard.recv()).await;
    let told: serde_json::Value = serde_json::from_str(&told.unwrap().unwrap()).unwrap();
    assert_eq!(told["session"], id.as_str());
    let frame: serde_json::Value = serde_json::from_slice(&asked_by_one).unwrap();
    assert_eq!(told["news"]["answer"], frame);

    // An id no replica's tag starts: told, and taken here only where rmcp does not serve
    // the session (else rmcp gets it too).
    let untagged = answer(0.into());
    let fast = admission.route.as_ref();
    assert_eq!(one.answered(&id, &untagged, fast).await, Answer::Accepted);
    assert_eq!(
        one.answered(&id, &untagged, None).await,
        Answer::Onward(None)
    );
    // Without a shared store nothing is told, and rmcp takes every answer.
    let alone = super::sessions().await;
    assert_eq!(
        alone.answered(&id, &asked_by_one, fast).await,
        Answer::Onward(None)
    );
}

#[tokio::test]
async fn a_failing_store_is_said_so_never_taken_for_a_session_that_is_gone() {
    let store = SharedStore::new();
    let ((one, _), (other, _)) = (replica(&store).await, replica(&store).await);
    let alice = Caller::new("alice", ["tools:read"]);
    let id = open(&one, &alice, Arc::new(Probe::default())).await;
    let tag = one.shared.as_ref().unwrap().tag().to_owned();
    store.failing.store(true, Ordering::Relaxed);
    // Unknown here, and its record cannot be read: 503 (a 404 would end it for the client).
    assert_eq!(refused(&other, Method::POST, &id, &alice).await, Some(503));
    // An answer for the replica that asked, which cannot be told: refused, not dropped.
    let frame = serde_json::json!({"jsonrpc": "2.0", "id": format!("{tag}:0"), "result": {}});
    let frame = serde_json::to_vec(&frame).unwrap();
    let fast = screen(&one, Method::POST, &id, &alice).await.route;
    assert_eq!(
        other.answered(&id, &frame, fast.as_ref()).await,
        Answer::Lost
    );
    // Back: the other replica serves it.
    store.failing.store(false, Ordering::Relaxed);
    assert_eq!(refused(&other, Method::POST, &id, &alice).await, None);
}

#[tokio::test]
async fn a_stream_resumes_where_it_was_served_or_afresh_or_is_refused() {
    let store = SharedStore::new();
    let ((one, _), (other, _)) = (replica(&store).await, replica(&store).await);
    let tag = one.shared.as_ref().unwrap().tag().to_owned();
    let resuming = |sessions: &Sessions, last: &str| {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("last-event-id", last.parse().unwrap());
        let refused = sessions.resuming(&mut headers).map(|r| r.status().as_u16());
        let last = headers
            .get("last-event-id")
            .map(|v| v.to_str().unwrap().to_owned());
        (refused, last)
    };
    // Served here: resumed under rmcp's own event id.
    let call = format!("{tag}:3/1");
    assert_eq!(resuming(&one, &call), (None, Some("3/1".to_owned())));
    // A call's stream another replica served: not here (503, to try again or give up).
    assert_eq!(resuming(&other, &call).0, Some(503));
    // The session's GET stream another replica served: afresh here.
    assert_eq!(resuming(&other, &format!("{tag}:7")), (None, None));
    // No replica's tag: as it came.
    assert_eq!(resuming(&one, "3/1"), (None, Some("3/1".to_owned())));
}

#[tokio::test]
async fn two_replicas_changing_one_record_at_once_keep_both_changes() {
    let store = SharedStore::new();
    let (a, _) = replica(&store).await;
    let (b, _) = replica(&store).await;
    let (a, b) = (a.shared.clone().unwrap(), b.shared.clone().unwrap());
    let handshake: InitializeRequestParams = serde_json::from_value(serde_json::json!({
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}))
    .unwrap();
    a.save("s1", &super::super::shared::Record::new(handshake, None))
        .await;
    store.slow.store(true, Ordering::Relaxed);
    for n in 0..8 {
        tokio::join!(
            a.set_level("s1", format!("level-{n}")),
            b.subscribe("s1", format!("notes://{n}"), true),
        );
    }
    let record = a.load("s1").await.unwrap().unwrap();
    assert_eq!(
        record.level.as_deref(),
        Some("level-7"),
        "no level change lost"
    );
    assert_eq!(
        record.subscriptions.len(),
        8,
        "no subscription lost: {:?}",
        record.subscriptions
    );
}
