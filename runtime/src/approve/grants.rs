//! Remembered approvals: a caller's calls of a tool approved until a time, in this process,
//! and in the task store when it keeps them (Redis), for every replica that shares it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::context::Caller;
use crate::task::TaskStore;

/// The most grants kept in the process: past it, the expired ones go, then the one that ends
/// first.
const MAX_GRANTS: usize = 10_000;

/// The approvals a server remembers, by caller and tool, each until it expires or is
/// revoked. Shared by the server's clones and sessions ([`Server::grants`](crate::Server::grants)).
/// Kept in the server's process, and, when the server has a task store that keeps them
/// ([`RedisStore`](crate::task::RedisStore), `--task-store redis://…`), there too: every
/// replica that shares the store honours a grant made on any of them, and a revoke reaches
/// them all.
///
/// ```
/// use std::time::Duration;
/// use toolsmith::Caller;
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
    held: Arc<Mutex<HashMap<(String, String), Instant>>>,
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
        {
            let mut held = self.lock();
            if held.len() >= MAX_GRANTS {
                held.retain(|_, until| *until > now);
            }
            if held.len() >= MAX_GRANTS
                && let Some(first) = held
                    .iter()
                    .min_by_key(|(_, until)| **until)
                    .map(|(k, _)| k.clone())
            {
                held.remove(&first);
            }
            held.insert(key(caller, tool), until);
        }
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
        let here = self
            .lock()
            .get(&key(caller, tool))
            .is_some_and(|until| *until > Instant::now());
        if here {
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

    /// Forgets the approval of `caller`'s calls of `tool` (in the shared store too): whether
    /// there was one.
    pub async fn revoke(&self, caller: &Caller, tool: &str) -> bool {
        let here = self.lock().remove(&key(caller, tool)).is_some();
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
        self.shared.get().is_some() || !self.lock().is_empty()
    }

    /// Keeps grants in `store` too, from now on (the first store given stays).
    pub(crate) fn share(&self, store: Arc<dyn TaskStore>) {
        let _ = self.shared.set(store);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Instant>> {
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn key(caller: &Caller, tool: &str) -> (String, String) {
    (caller.identity().to_owned(), tool.to_owned())
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
        assert_eq!(grants.lock().len(), MAX_GRANTS);
        // The grant that ended first (`t`, at 60 s) made room.
        assert!(!grants.holds(&alice, "t").await);
        assert!(grants.holds(&alice, "tool0").await);
    }
}
