//! The making of grants: here at once, and in the shared store, which keeps them from then
//! on; a session's, forgotten when it ends; those made before the store was given, written
//! there once it is.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Entry, Granted, Grants, MAX_GRANTS, SESSION_GRANT, Scope};
use crate::context::Caller;
use crate::task::TaskStore;
use rmcp::model::JsonObject;

impl Grants {
    /// Remembers an approval of `scope` for `ttl`: here at once, and, with a shared store,
    /// there by the future returned (the store's from then on).
    pub(crate) fn remember(
        &self,
        scope: &Scope<'_>,
        ttl: Duration,
    ) -> Option<impl Future<Output = ()> + Send + use<>> {
        let now = Instant::now();
        let until = now.checked_add(ttl)?;
        let id = self.id(scope);
        let expires_ms = crate::task::now_ms().saturating_add(ttl.as_millis() as u64);
        let granted = Granted {
            id: id.clone(),
            caller: crate::approve::shown(scope.caller),
            identity: scope.caller.identity().to_owned(),
            tool: scope.tool.to_owned(),
            arguments: scope.bound.cloned().unwrap_or_default(),
            session: scope.session.is_some(),
            expires_ms,
        };
        let store = self.inner.shared.get().cloned();
        let write = store
            .is_some()
            .then(|| (self.inner.writes).fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        {
            let mut held = self.write();
            if !held.contains_key(&id) && held.len() >= MAX_GRANTS {
                held.retain(|_, entry| entry.until > now);
                let first = held
                    .iter()
                    .min_by_key(|(_, e)| e.until)
                    .map(|(k, _)| k.clone());
                if let (true, Some(first)) = (held.len() >= MAX_GRANTS, first) {
                    held.remove(&first);
                }
            }
            let description = granted.clone();
            held.insert(
                id.clone(),
                Entry {
                    until,
                    granted: description,
                    writing: write,
                },
            );
        }
        if let Some(session) = scope.session {
            let mut sessions = self
                .inner
                .sessions
                .write()
                .unwrap_or_else(|e| e.into_inner());
            sessions.entry(session).or_default().push(id.clone());
        }
        let (store, write) = (store?, write?);
        let grants = self.clone();
        Some(async move {
            let description = serde_json::to_string(&granted).unwrap_or_default();
            let kept = store.remember_as(&id, &description, ttl).await;
            let revoked_meanwhile = {
                let mut held = grants.write();
                let ours = held.get(&id).is_some_and(|e| e.writing == Some(write));
                match &kept {
                    // The store's now: a revoke there reaches every replica.
                    Ok(true) if ours => {
                        held.remove(&id);
                        false
                    }
                    Ok(true) => !held.contains_key(&id),
                    // A store that keeps none: this process keeps it.
                    Ok(false) => {
                        if let Some(entry) = held.get_mut(&id).filter(|_| ours) {
                            entry.writing = None;
                        }
                        false
                    }
                    Err(_) => {
                        if ours {
                            held.remove(&id);
                        }
                        false
                    }
                }
            };
            if revoked_meanwhile {
                let _ = store.forget(&id).await;
            }
            if let Err(err) = kept {
                tracing::warn!(%err, tool = %granted.tool, "an approval could not be remembered in the task store: it held for its call only");
            }
        })
    }

    /// Keeps grant `id` in this process (its write to the store cannot be made).
    pub(super) fn keep_here(&self, id: &str) {
        if let Some(entry) = self.write().get_mut(id) {
            entry.writing = None;
        }
    }

    /// Approves `caller`'s calls of `tool` (bound to `bound`) in session `session` until it
    /// ends (at most a day); the future writes it to the shared store.
    pub(crate) fn grant_session(
        &self,
        session: u64,
        caller: &Caller,
        tool: &str,
        bound: Option<&JsonObject>,
    ) -> Option<impl Future<Output = ()> + Send + use<>> {
        let scope = Scope {
            caller,
            tool,
            bound,
            session: Some(session),
        };
        self.remember(&scope, SESSION_GRANT)
    }

    /// Forgets every grant of `session` (it ended), in the shared store too.
    pub(crate) fn end_session(&self, session: u64) {
        let ids = {
            let mut sessions = self
                .inner
                .sessions
                .write()
                .unwrap_or_else(|e| e.into_inner());
            sessions.remove(&session).unwrap_or_default()
        };
        if ids.is_empty() {
            return;
        }
        {
            let mut held = self.write();
            for id in &ids {
                held.remove(id);
            }
        }
        if let (Some(store), Ok(runtime)) = (
            self.inner.shared.get().cloned(),
            tokio::runtime::Handle::try_current(),
        ) {
            runtime.spawn(async move {
                for id in ids {
                    let _ = store.forget(&id).await;
                }
            });
        }
    }

    /// Keeps grants in `store` from now on (the first store given stays); those made before
    /// are written there too.
    pub(crate) fn share(&self, store: Arc<dyn TaskStore>) {
        if self.inner.shared.set(store).is_err() {
            return;
        }
        let Some(store) = self.inner.shared.get().cloned() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return; // kept here, as they were
        };
        let now = Instant::now();
        let made: Vec<(String, Granted, Duration)> = self
            .read()
            .iter()
            .filter(|(_, entry)| entry.writing.is_none() && entry.until > now)
            .map(|(id, e)| (id.clone(), e.granted.clone(), e.until - now))
            .collect();
        let grants = self.clone();
        runtime.spawn(async move {
            for (id, granted, ttl) in made {
                let description = serde_json::to_string(&granted).unwrap_or_default();
                if let Ok(true) = store.remember_as(&id, &description, ttl).await {
                    grants.write().remove(&id);
                }
            }
        });
    }
}
