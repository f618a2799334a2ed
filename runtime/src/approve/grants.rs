//! Remembered approvals: a caller's calls of a tool approved until a time, in this process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::context::Caller;

/// The most grants kept: past it, the expired ones go, then the one that ends first.
const MAX_GRANTS: usize = 10_000;

/// The approvals a server remembers, by caller and tool, each until it expires or is
/// revoked. Shared by the server's clones and sessions ([`Server::grants`](crate::Server::grants));
/// kept in this process (replicas do not share them).
///
/// ```
/// use std::time::Duration;
/// use toolsmith::approve::Grants;
/// use toolsmith::Caller;
///
/// let grants = Grants::default();
/// let alice = Caller::new("alice", ["notes:write"]);
/// grants.grant(&alice, "delete_note", Duration::from_secs(3600));
/// assert!(grants.holds(&alice, "delete_note"));
/// assert!(!grants.holds(&Caller::new("bob", ["notes:write"]), "delete_note"));
/// assert!(grants.revoke(&alice, "delete_note"));
/// assert!(!grants.holds(&alice, "delete_note"));
/// ```
#[derive(Clone, Default)]
pub struct Grants {
    held: Arc<Mutex<HashMap<(String, String), Instant>>>,
}

impl Grants {
    /// Approves `caller`'s calls of `tool` for `ttl` from now.
    pub fn grant(&self, caller: &Caller, tool: &str, ttl: Duration) {
        let now = Instant::now();
        let Some(until) = now.checked_add(ttl) else {
            return;
        };
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

    /// Whether `caller`'s calls of `tool` are approved now.
    pub fn holds(&self, caller: &Caller, tool: &str) -> bool {
        self.lock()
            .get(&key(caller, tool))
            .is_some_and(|until| *until > Instant::now())
    }

    /// Forgets the approval of `caller`'s calls of `tool`: whether there was one.
    pub fn revoke(&self, caller: &Caller, tool: &str) -> bool {
        self.lock().remove(&key(caller, tool)).is_some()
    }

    /// Whether no grant is held (expired ones count until they are cleared).
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grant_expires_and_the_oldest_goes_past_the_cap() {
        let grants = Grants::default();
        let alice = Caller::new("alice", ["x"]);
        grants.grant(&alice, "t", Duration::ZERO);
        assert!(!grants.holds(&alice, "t"));
        grants.grant(&alice, "t", Duration::from_secs(60));
        assert!(grants.holds(&alice, "t"));
        assert!(!grants.holds(&Caller::anonymous(), "t"));
        assert!(!grants.holds(&alice, "u"));
        for n in 0..MAX_GRANTS {
            grants.grant(&alice, &format!("tool{n}"), Duration::from_secs(120));
        }
        assert_eq!(grants.lock().len(), MAX_GRANTS);
        // The grant that ended first (`t`, at 60 s) made room.
        assert!(!grants.holds(&alice, "t"));
        assert!(grants.holds(&alice, "tool0"));
    }
}
