//! The sessions the server opened: served here until rmcp restores them, ended when idle.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{ClientCapabilities, Implementation, InitializeRequestParams};
use rmcp::transport::streamable_http_server::session::SessionStore;

use super::{OpenedSessions, Session, SessionCore, SessionRoute};

#[derive(Default)]
struct Probe(AtomicBool);

impl Session for Probe {
    fn end(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn probe(core: &SessionCore) -> &Probe {
    let any: &dyn std::any::Any = core.as_ref();
    any.downcast_ref::<Probe>().expect("a probe")
}

fn handshake() -> InitializeRequestParams {
    InitializeRequestParams::new(ClientCapabilities::default(), Implementation::new("c", "1"))
}

#[tokio::test]
async fn sessions_nothing_is_asked_of_end() {
    let kept = OpenedSessions::new(None);
    let (idle, moved): (SessionCore, SessionCore) =
        (Arc::new(Probe::default()), Arc::new(Probe::default()));
    let idle_id = kept.open(idle.clone(), handshake());
    let moved_id = kept.open(moved.clone(), handshake());
    kept.load(&moved_id).await.unwrap();
    let opened = tokio::time::Instant::now();
    let second = std::time::Duration::from_secs(1);
    // Looked for, but not idle for long enough yet.
    kept.sweep_at(opened + super::SWEEP + second);
    assert!(kept.contains(&idle_id) && kept.contains(&moved_id));
    // Past IDLE: the one never moved ends, and what runs of it stops; the one rmcp has
    // is forgotten here (rmcp's keep-alive ends it there).
    kept.sweep_at(opened + super::IDLE + second);
    assert!(!kept.contains(&idle_id) && !kept.contains(&moved_id));
    assert!(probe(&idle).0.load(Ordering::Relaxed));
    assert!(!probe(&moved).0.load(Ordering::Relaxed));
    assert_eq!(kept.unrestored(), 0);
}

#[tokio::test]
async fn a_session_is_served_here_until_rmcp_restores_it() {
    let kept = OpenedSessions::new(None);
    let core: SessionCore = Arc::new(Probe::default());
    let id = kept.open(core, handshake());
    assert_eq!(kept.unrestored(), 1);
    let Some(SessionRoute::Fast(_, gate)) = kept.route(&id) else {
        panic!("the fast path's");
    };
    // The first request to rmcp holds the gate until it is answered; the next waits.
    let held = gate.pass().await.expect("held until rmcp restored it");
    let next = tokio::spawn({
        let gate = gate.clone();
        async move { gate.pass().await.is_none() }
    });
    tokio::task::yield_now().await;
    assert!(!next.is_finished(), "the next request waits");
    // rmcp restores it from the handshake kept.
    let state = kept
        .load(&id)
        .await
        .unwrap()
        .expect("the handshake is kept");
    drop(held);
    assert!(next.await.unwrap(), "then goes on through an open gate");
    assert_eq!(state.initialize_params.client_info.name, "c");
    assert_eq!(kept.unrestored(), 0);
    let Some(SessionRoute::Rmcp(core, gate)) = kept.route(&id) else {
        panic!("restored: rmcp's to serve");
    };
    assert!(gate.pass().await.is_none(), "no gate once rmcp has it");
    assert!(kept.load("unknown").await.unwrap().is_none());
    // rmcp's DELETE ends it here too; what runs of it is rmcp's to stop.
    kept.delete(&id).await.unwrap();
    assert!(kept.route(&id).is_none() && !kept.contains(&id));
    assert!(!probe(&core).0.load(Ordering::Relaxed));
    let other: SessionCore = Arc::new(Probe::default());
    let id = kept.open(other.clone(), handshake());
    assert!(kept.end(&id), "ended here: rmcp never had it");
    assert!(
        probe(&other).0.load(Ordering::Relaxed),
        "what runs of it stops"
    );
    assert_eq!(kept.unrestored(), 0);
}
