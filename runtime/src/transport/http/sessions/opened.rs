//! The sessions the server opened itself: an `initialize` answered on the fast path makes a
//! map entry (the server's own state for the session, opaque here, and the handshake), not
//! a service. While a session asks only for what the fast path answers, that entry is all
//! it costs. The first request that needs rmcp's service (a `GET` stream, `logging/setLevel`,
//! a subscription, a call whose client can be asked something, ...) goes to rmcp with the
//! session's id, which rmcp does not know yet: it loads the handshake from this map (its
//! session store) and restores the session under the same id by replaying it, and the
//! handler made for it adopts the server's state of the session ([`restoring`]). From then
//! on rmcp serves the session, as one it opened itself.

use std::any::Any;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::model::InitializeRequestParams;
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};
use tokio::sync::OwnedMutexGuard;

use super::shared::{Record, Shared};
// The runtime's clock (the standard one outside tests), so that a test can let time pass.
use tokio::time::Instant;

/// What the server keeps for one session it opened, opaque to the transport but for its end.
pub(crate) trait Session: Any + Send + Sync {
    /// The session ended here (its `DELETE`, or 5 idle minutes): what still runs of it is
    /// cancelled, as rmcp cancels what runs of a session it closes.
    fn end(&self);

    /// The client set the session's log level (`logging/setLevel`, as rmcp reads it) on
    /// another replica.
    fn set_level(&self, level: &str) {
        let _ = level;
    }
}

/// The server's state of one session it opened.
pub(crate) type SessionCore = Arc<dyn Session>;

/// What makes the server's state of a session another replica opened (the server's fast
/// path).
pub(crate) trait Adopter: Send + Sync + 'static {
    /// With sessions: the server's state of a session another replica opened with
    /// `handshake` (and set to log at `level`), or `None` for rmcp to restore it.
    fn adopt(
        &self,
        handshake: &InitializeRequestParams,
        level: Option<&str>,
    ) -> Option<SessionCore>;
}

tokio::task_local! {
    /// The server's state of the session whose request is on its way to rmcp.
    static RESTORING: SessionCore;
}

/// Within a request to rmcp's service for a session the server opened on the fast path: the
/// server's state of that session, for the handler rmcp makes when it restores the session
/// to adopt (outside one: `None`, and the handler is a new session's).
pub(crate) fn restoring() -> Option<SessionCore> {
    RESTORING.try_with(Clone::clone).ok()
}

/// Runs `request` (on its way to rmcp) with `core` as what [`restoring`] gives.
pub(in crate::transport::http) async fn scoped<F: Future>(
    core: Option<SessionCore>,
    request: F,
) -> F::Output {
    match core {
        Some(core) => RESTORING.scope(core, request).await,
        None => request.await,
    }
}

/// How long a session nothing asked of stays (rmcp's own keep-alive for its sessions).
pub(super) const IDLE: Duration = Duration::from_secs(300);

/// How often idle sessions are looked for (by a timer: [`super::Sessions::sweeping`]).
pub(super) const SWEEP: Duration = Duration::from_secs(30);

/// The sessions the server opened on the fast path, by id.
pub(in crate::transport::http) struct OpenedSessions {
    map: Mutex<Map>,
    /// Where every replica finds the sessions any of them opened, when they share a store.
    shared: Option<Arc<Shared>>,
}

struct Map {
    entries: HashMap<Box<str>, Entry>,
    /// How many of `entries` rmcp has not restored (those count against the cap; the others
    /// are rmcp's sessions too).
    unrestored: usize,
}

struct Entry {
    core: SessionCore,
    gate: Arc<RestoreGate>,
    handshake: InitializeRequestParams,
    /// When a request of it last came.
    seen: Instant,
}

/// What the requests of one session pass on their way to rmcp. rmcp knows a session as
/// soon as it begins to restore it, before the handshake is replayed: a request let through
/// then would reach the session ahead of its handshake (and end it). So until rmcp has
/// restored it, one request at a time goes to rmcp, and holds the gate until it is answered.
#[derive(Default)]
pub(in crate::transport::http) struct RestoreGate {
    lock: Arc<tokio::sync::Mutex<()>>,
    /// rmcp has loaded the handshake, and serves the session from then on (set by the
    /// request that restores it, while it holds the gate).
    restored: AtomicBool,
}

impl RestoreGate {
    /// Waits for the request before, if any, to be answered; then the guard to hold until
    /// this request is answered, when rmcp has not restored the session (`None`: it has,
    /// and the request goes on at once).
    pub(in crate::transport::http) async fn pass(&self) -> Option<OwnedMutexGuard<()>> {
        let guard = self.lock.clone().lock_owned().await;
        (!self.restored()).then_some(guard)
    }

    /// rmcp has the session (it loaded the handshake).
    fn restored(&self) -> bool {
        self.restored.load(Ordering::Acquire)
    }
}

/// Where a request for a session the server opened goes.
pub(in crate::transport::http) enum SessionRoute {
    /// To the fast path (which may still leave it to rmcp), with the server's state of it.
    Fast(SessionCore, Arc<RestoreGate>),
    /// To rmcp, which serves the session (restored, or being restored).
    Rmcp(SessionCore, Arc<RestoreGate>),
}

impl SessionRoute {
    /// The server's state of the session, and the gate to rmcp.
    pub(in crate::transport::http) fn into_parts(self) -> (SessionCore, Arc<RestoreGate>) {
        match self {
            SessionRoute::Fast(core, gate) | SessionRoute::Rmcp(core, gate) => (core, gate),
        }
    }
}

impl OpenedSessions {
    pub(super) fn new(shared: Option<Arc<Shared>>) -> OpenedSessions {
        OpenedSessions {
            map: Mutex::new(Map {
                entries: HashMap::new(),
                unrestored: 0,
            }),
            shared,
        }
    }

    fn map(&self) -> MutexGuard<'_, Map> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps a session the fast path opened with `handshake`; returns its new id.
    pub(in crate::transport::http) fn open(
        &self,
        core: SessionCore,
        handshake: InitializeRequestParams,
    ) -> String {
        let id = super::id::new_id();
        self.adopt(&id, core, handshake);
        id
    }

    /// Serves here session `id`, which another replica opened (its `handshake` read from
    /// the shared store), as if it had been opened here.
    pub(in crate::transport::http) fn adopt(
        &self,
        id: &str,
        core: SessionCore,
        handshake: InitializeRequestParams,
    ) -> SessionRoute {
        let mut map = self.map();
        let map = &mut *map;
        // Two requests of it that came at once: the one adopted first serves both.
        let entry = map.entries.entry(id.into()).or_insert_with(|| {
            map.unrestored += 1;
            Entry {
                core,
                gate: Arc::default(),
                handshake,
                seen: Instant::now(),
            }
        });
        let (core, gate) = (entry.core.clone(), entry.gate.clone());
        match gate.restored() {
            false => SessionRoute::Fast(core, gate),
            true => SessionRoute::Rmcp(core, gate),
        }
    }

    /// The server's state of session `id`, when the server opened it (not counted as a use).
    pub(in crate::transport::http) fn core(&self, id: &str) -> Option<SessionCore> {
        self.map().entries.get(id).map(|entry| entry.core.clone())
    }

    /// The sessions a request of came for within `within`.
    pub(in crate::transport::http) fn used_within(&self, within: Duration) -> Vec<String> {
        let now = Instant::now();
        let map = self.map();
        map.entries
            .iter()
            .filter(|(_, entry)| now.duration_since(entry.seen) < within)
            .map(|(id, _)| id.to_string())
            .collect()
    }

    /// Where a request for session `id` goes, when the server opened it (`None`: rmcp's own,
    /// or none at all).
    pub(in crate::transport::http) fn route(&self, id: &str) -> Option<SessionRoute> {
        let mut map = self.map();
        let entry = map.entries.get_mut(id)?;
        entry.seen = Instant::now();
        let core = entry.core.clone();
        Some(match entry.gate.restored() {
            false => SessionRoute::Fast(core, entry.gate.clone()),
            true => SessionRoute::Rmcp(core, entry.gate.clone()),
        })
    }

    /// Whether session `id` is one the server opened.
    pub(in crate::transport::http) fn contains(&self, id: &str) -> bool {
        self.map().entries.contains_key(id)
    }

    /// Ends session `id`; whether it was one rmcp had not restored (and so ends here).
    pub(in crate::transport::http) fn end(&self, id: &str) -> bool {
        let mut map = self.map();
        match map.entries.remove(id) {
            Some(entry) if !entry.gate.restored() => {
                map.unrestored -= 1;
                drop(map);
                entry.core.end();
                true
            }
            _ => false,
        }
    }

    /// How many sessions are open here only (rmcp has not restored them).
    pub(in crate::transport::http) fn unrestored(&self) -> usize {
        self.map().unrestored
    }

    /// Ends the sessions nothing was asked of for [`IDLE`]. One rmcp restored goes on as
    /// rmcp's while its own keep-alive lasts.
    pub(in crate::transport::http) fn sweep(&self) {
        self.sweep_at(Instant::now());
    }

    fn sweep_at(&self, now: Instant) {
        let mut map = self.map();
        let before = map.entries.len();
        let mut ended = Vec::new();
        map.entries.retain(|_, entry| {
            let keep = now.duration_since(entry.seen) < IDLE;
            if !keep && !entry.gate.restored() {
                ended.push(entry.core.clone());
            }
            keep
        });
        map.unrestored -= ended.len();
        let forgotten = before - map.entries.len();
        drop(map);
        for core in &ended {
            core.end();
        }
        if forgotten > 0 {
            tracing::debug!(ended = ended.len(), forgotten, "idle sessions ended");
        }
    }
}

#[async_trait::async_trait]
impl SessionStore for OpenedSessions {
    /// The handshake of a session the server opened, for rmcp to restore it: from then on
    /// the session is rmcp's to serve.
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let known = self.map().entries.contains_key(session_id);
        if !known {
            // One another replica opened (served here without the fast path).
            let Some(shared) = &self.shared else {
                return Ok(None);
            };
            let record = shared.load(session_id).await;
            let record = record.map_err(|err| -> SessionStoreError { Box::new(err) })?;
            return Ok(record.map(|record| SessionState::new(record.handshake)));
        }
        let mut map = self.map();
        let Some(entry) = map.entries.get_mut(session_id) else {
            return Ok(None);
        };
        let handshake = entry.handshake.clone();
        if !entry.gate.restored.swap(true, Ordering::AcqRel) {
            map.unrestored -= 1;
        }
        tracing::debug!(session = session_id, "a session moves to rmcp's service");
        Ok(Some(SessionState::new(handshake)))
    }

    /// Sessions rmcp opens are kept by rmcp alone, and in the shared store when there is
    /// one (so that another replica can serve them).
    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        if let Some(shared) = &self.shared {
            let record = Record::new(state.initialize_params.clone(), None);
            shared.save(session_id, &record).await;
        }
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        self.end(session_id);
        Ok(())
    }
}

#[cfg(test)]
#[path = "opened_tests.rs"]
mod tests;
