//! Remembered approvals: a caller's calls of a tool approved until a time, in this process,
//! and in the task store when it keeps them (Redis), for every replica that shares it.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use crate::context::Caller;
use crate::task::TaskStore;

/// The most grants kept in the process: past it, the expired ones go, then the one that ends
/// first.
const MAX_GRANTS: usize = 10_000;

/// The longest a session's grant holds, when the session lasts longer.
const SESSION_GRANT: Duration = Duration::from_secs(24 * 3600);

/// The approvals a server remembers, by caller and tool, each until it expires or is
/// revoked. Shared by the server's clones and sessions ([`Server::grants`](crate::Server::grants)).
/// Kept in the server's process, and, when the server has a task store that keeps them
/// ([`RedisStore`](crate::task::RedisStore), `--task-store redis://…`), there too: every
/// replica that shares the store honours a grant made on any of them, and a revoke reaches
/// them all.
///
/// ```
/// use std::time::Duration;
/// use toolsmith::context::Caller;
/// use toolsmith::approve::Grants;
///
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// let grants = Grants::default();
/// let alice = Caller::new("alice", ["notes:write"]);
/// grants.grant(&alice, "delete_note", Duration::from_secs(3600));
/// assert!(grants.holds(&alice, "delete_note").await);
/// assert!(!grants.holds(&Caller::new("bob", ["notes:write"]), "delete_note").await);
/// assert!(grants.revoke(&alice, "delete_note").await);
/// assert!(!grants.holds(&alice, "delete_note").await);
/// # });
/// ```
#[derive(Clone, Default)]
pub struct Grants {
    held: Arc<RwLock<Held>>,
    /// The grants that hold for one session ([`Remember::Session`](super::Remember)), by
    /// session: forgotten when it ends.
    sessions: Arc<RwLock<HashMap<u64, Held, foldhash::fast::RandomState>>>,
    /// The task store the server was given, set when it starts serving.
    shared: Arc<OnceLock<Arc<dyn TaskStore>>>,
}

impl Grants {
    /// Approves `caller`'s calls of `tool` for `ttl` from now (in the shared store too, in the
    /// background).
    pub fn grant(&self, caller: &Caller, tool: &str, ttl: Duration) {
        let now = Instant::now();
        let Some(until) = now.checked_add(ttl) else {
            return;
        };
        self.write().insert(caller.identity(), tool, until, now);
        if let (Some(store), Ok(runtime)) = (
            self.shared.get().cloned(),
            tokio::runtime::Handle::try_current(),
        ) {
            let shared = shared_key(caller, tool);
            runtime.spawn(async move {
                if let Err(err) = store.remember(&shared, ttl).await {
                    tracing::warn!(%err, "an approval could not be remembered in the task store");
                }
            });
        }
    }

    /// Whether `caller`'s calls of `tool` are approved now (here, or in the shared store).
    pub async fn holds(&self, caller: &Caller, tool: &str) -> bool {
        if self.held_here(caller, None, tool) {
            return true;
        }
        match self.shared.get() {
            Some(store) => store
                .remembered(&shared_key(caller, tool))
                .await
                .unwrap_or(false),
            None => false,
        }
    }

    /// Approves `caller`'s calls of `tool` in session `session` until it ends (at most a day),
    /// in this process only: a session is served by one.
    pub(crate) fn grant_session(&self, session: u64, caller: &Caller, tool: &str) {
        let now = Instant::now();
        let until = now + SESSION_GRANT;
        let mut sessions = self
            .sessions
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !sessions.contains_key(&session) && sessions.len() >= MAX_GRANTS {
            return; // as many sessions with grants as grants: this one asks again
        }
        let held = sessions.entry(session).or_default();
        held.insert(caller.identity(), tool, until, now);
    }

    /// Forgets every grant of `session` (it ended).
    pub(crate) fn end_session(&self, session: u64) {
        if let Ok(mut sessions) = self.sessions.write() {
            sessions.remove(&session);
        }
    }

    /// Forgets the approval of `caller`'s calls of `tool` (in the shared store too): whether
    /// there was one.
    pub async fn revoke(&self, caller: &Caller, tool: &str) -> bool {
        let here = self.write().remove(caller.identity(), tool);
        let there = match self.shared.get() {
            Some(store) => store
                .forget(&shared_key(caller, tool))
                .await
                .unwrap_or(false),
            None => false,
        };
        here || there
    }

    /// Whether a grant may be held: one is kept here, or a shared store may keep some.
    pub(crate) fn may_hold(&self) -> bool {
        self.shared.get().is_some() || self.read().len > 0 || !self.sessions_read().is_empty()
    }

    /// Whether this process holds a live grant of `caller`'s calls of `tool`, for any
    /// session or for `session` (the shared store is not asked): a lookup without an
    /// allocation, for every confirmed call.
    pub(crate) fn held_here(&self, caller: &Caller, session: Option<u64>, tool: &str) -> bool {
        let live = |until: Instant| until > Instant::now();
        {
            let held = self.read();
            if held.len > 0 && held.until(caller.identity(), tool).is_some_and(live) {
                return true;
            }
        }
        let Some(session) = session else {
            return false;
        };
        let sessions = self.sessions_read();
        sessions
            .get(&session)
            .and_then(|held| held.until(caller.identity(), tool))
            .is_some_and(live)
    }

    fn sessions_read(
        &self,
    ) -> std::sync::RwLockReadGuard<'_, HashMap<u64, Held, foldhash::fast::RandomState>> {
        self.sessions
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps grants in `store` too, from now on (the first store given stays).
    pub(crate) fn share(&self, store: Arc<dyn TaskStore>) {
        let _ = self.shared.set(store);
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Held> {
        self.held
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Held> {
        self.held
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

type Map<V> = HashMap<Box<str>, V, foldhash::fast::RandomState>;

/// The grants of this process: until when, by caller identity, then by tool (looked up by
/// `&str` at each level, without making a key).
#[derive(Default)]
struct Held {
    by_caller: Map<Map<Instant>>,
    /// How many grants there are, over every caller.
    len: usize,
}

impl Held {
    fn until(&self, caller: &str, tool: &str) -> Option<Instant> {
        self.by_caller.get(caller)?.get(tool).copied()
    }

    /// Holds `caller`'s grant of `tool` until `until`; past [`MAX_GRANTS`], the expired ones
    /// go first, then the one that ends first.
    fn insert(&mut self, caller: &str, tool: &str, until: Instant, now: Instant) {
        if self.until(caller, tool).is_none() && self.len >= MAX_GRANTS {
            self.by_caller.retain(|_, tools| {
                tools.retain(|_, until| *until > now);
                !tools.is_empty()
            });
            self.len = self.by_caller.values().map(HashMap::len).sum();
            if self.len >= MAX_GRANTS {
                let first = self
                    .by_caller
                    .iter()
                    .flat_map(|(caller, tools)| {
                        tools.iter().map(move |(tool, at)| (*at, caller, tool))
                    })
                    .min_by_key(|(at, _, _)| *at)
                    .map(|(_, caller, tool)| (caller.clone(), tool.clone()));
                if let Some((caller, tool)) = first {
                    self.remove(&caller, &tool);
                }
            }
        }
        let tools = match self.by_caller.get_mut(caller) {
            Some(tools) => tools,
            None => self.by_caller.entry(caller.into()).or_default(),
        };
        if tools.insert(tool.into(), until).is_none() {
            self.len += 1;
        }
    }

    /// Forgets `caller`'s grant of `tool`: whether there was one.
    fn remove(&mut self, caller: &str, tool: &str) -> bool {
        let Some(tools) = self.by_caller.get_mut(caller) else {
            return false;
        };
        let removed = tools.remove(tool).is_some();
        if tools.is_empty() {
            self.by_caller.remove(caller);
        }
        if removed {
            self.len -= 1;
        }
        removed
    }
}

/// A grant's key in a shared store: the digest of the caller's identity and the tool (an
/// identity may be long, and hold anything).
fn shared_key(caller: &Caller, tool: &str) -> String {
    use sha2::Digest;
    let mut digest = sha2::Sha256::new();
    digest.update(caller.identity().as_bytes());
    digest.update([0]);
    digest.update(tool.as_bytes());
    digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_grant_expires_and_the_oldest_goes_past_the_cap() {
        let grants = Grants::default();
        let alice = Caller::new("alice", ["x"]);
        grants.grant(&alice, "t", Duration::ZERO);
        assert!(!grants.holds(&alice, "t").await);
        grants.grant(&alice, "t", Duration::from_secs(60));
        assert!(grants.holds(&alice, "t").await);
        assert!(!grants.holds(&Caller::anonymous(), "t").await);
        assert!(!grants.holds(&alice, "u").await);
        for n in 0..MAX_GRANTS {
            grants.grant(&alice, &format!("tool{n}"), Duration::from_secs(120));
        }
        assert_eq!(grants.read().len, MAX_GRANTS);
        // The grant that ended first (`t`, at 60 s) made room.
        assert!(!grants.holds(&alice, "t").await);
        assert!(grants.holds(&alice, "tool0").await);
    }

    #[test]
    fn a_session_grant_holds_in_its_session_until_it_ends() {
        let grants = Grants::default();
        let alice = Caller::new("alice", ["x"]);
        grants.grant_session(7, &alice, "t");
        assert!(grants.may_hold());
        assert!(grants.held_here(&alice, Some(7), "t"));
        assert!(!grants.held_here(&alice, Some(8), "t"), "another session");
        assert!(!grants.held_here(&alice, None, "t"), "outside any session");
        assert!(
            !grants.held_here(&Caller::anonymous(), Some(7), "t"),
            "another caller"
        );
        assert!(!grants.held_here(&alice, Some(7), "u"), "another tool");
        grants.end_session(7);
        assert!(!grants.held_here(&alice, Some(7), "t"));
        assert!(!grants.may_hold());
    }
}
