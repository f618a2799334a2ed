//! What the screen keeps of a session goes when the session ends: by its `DELETE`, or idle
//! (found by the timer, with no other request coming).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use rmcp::model::{ClientCapabilities, Implementation, InitializeRequestParams};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::{Session, SessionCore, Sessions, opened};
use crate::context::Caller;

#[derive(Default)]
struct Probe(AtomicBool, std::sync::Mutex<Option<String>>);

impl Session for Probe {
    fn end(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn set_level(&self, level: &str) {
        *self.1.lock().unwrap() = Some(level.to_owned());
    }
}

async fn sessions() -> Arc<Sessions> {
    let manager = Arc::new(LocalSessionManager::default());
    Sessions::new(manager, 10, None, None).await.unwrap()
}

/// Opens a session on the fast path for `caller`, as the edge does: its id.
async fn open(sessions: &Sessions, caller: &Caller, core: SessionCore) -> String {
    let initialize = Some((Some("initialize"), Some("1")));
    let admission = sessions
        .screen(&Method::POST, &HeaderMap::new(), Some(caller), initialize)
        .await
        .unwrap_or_else(|_| panic!("an initialize under the cap is let through"));
    let handshake =
        InitializeRequestParams::new(ClientCapabilities::default(), Implementation::new("c", "1"));
    sessions.opened(admission, core, handshake).await
}

fn naming(id: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert("mcp-session-id", HeaderValue::from_str(id).unwrap());
    headers
}

#[tokio::test]
async fn a_deleted_session_leaves_no_owner_behind() {
    let sessions = sessions().await;
    // A long subject, as a token's may be: what leaked was this, once per session.
    let caller = Caller::new("a".repeat(4096), ["tools:read"]);
    for _ in 0..50 {
        let id = open(&sessions, &caller, Arc::new(Probe::default())).await;
        assert_eq!(sessions.owners().len(), 1, "bound to its caller while open");
        let Err(answer) = sessions
            .screen(&Method::DELETE, &naming(&id), Some(&caller), None)
            .await
        else {
            panic!("a DELETE of a session the fast path serves is answered here");
        };
        assert_eq!(answer.status(), StatusCode::NO_CONTENT);
    }
    assert!(
        sessions.owners().is_empty(),
        "{:?}",
        sessions.owners().len()
    );
}

#[tokio::test(start_paused = true)]
async fn an_idle_session_ends_with_no_other_request_coming() {
    let sessions = sessions().await;
    Sessions::sweeping(&sessions);
    let caller = Caller::new("alice", ["tools:read"]);
    let probe = Arc::new(Probe::default());
    let id = open(&sessions, &caller, probe.clone()).await;
    // Not idle long enough yet: still there.
    tokio::time::sleep(opened::IDLE - opened::SWEEP).await;
    assert!(sessions.opened.contains(&id));
    // Past the idle limit and one more look: ended, what ran of it stopped, its owner gone,
    // though no session opened and no request came in between.
    tokio::time::sleep(opened::SWEEP * 2).await;
    assert!(
        !sessions.opened.contains(&id),
        "an idle session still answers"
    );
    assert!(probe.0.load(Ordering::Relaxed), "what ran of it is stopped");
    assert!(sessions.owners().is_empty());
    // The timer ends with the sessions.
    let weak = Arc::downgrade(&sessions);
    drop(sessions);
    tokio::time::sleep(opened::SWEEP * 2).await;
    assert!(weak.upgrade().is_none());
}

#[path = "tests_shared.rs"]
mod shared;
