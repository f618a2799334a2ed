//! Remembered approvals: a caller's calls of a tool (with the same values of some of its
//! arguments, or in one session) approved until a time. Kept in this process; with a task
//! store that keeps them (Redis), kept there instead, and looked up there on every call, so
//! that a revoke on any replica (its approvals page, the `grants revoke` command) reaches
//! every one at once.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use rmcp::model::JsonObject;
use serde::{Deserialize, Serialize};

use crate::context::Caller;
use crate::task::TaskStore;
use crate::tool::canonical;

mod made;

/// The most grants kept in the process: past it, the one that ends first goes.
const MAX_GRANTS: usize = 10_000;

/// The longest a session's grant holds, when the session lasts longer.
const SESSION_GRANT: Duration = Duration::from_secs(24 * 3600);

/// The approvals a server remembers, each until it expires or is revoked: by caller and
/// tool, and, for an approval a rule with argument conditions made, by the values of those
/// arguments (normalized: `1.0` is `1`). Shared by the server's clones and sessions
/// ([`Server::grants`](crate::Server::grants)).
///
/// Kept in the server's process; when the server has a task store that keeps them
/// ([`RedisStore`](crate::task::RedisStore), `--task-store redis://…`), the store is the
/// truth: a grant is written there, every lookup asks it, and a revoke there (from any
/// replica, or `grants revoke` on the command line) reaches every replica at once.
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
/// let listed = grants.list().await;
/// assert_eq!((listed[0].caller.as_str(), listed[0].tool.as_str()), ("alice", "delete_note"));
/// assert!(grants.revoke_id(&listed[0].id).await);
/// assert!(!grants.holds(&alice, "delete_note").await);
/// # });
/// ```
#[derive(Clone)]
pub struct Grants {
    inner: Arc<Inner>,
}

struct Inner {
    /// By id: every grant without a shared store; with one, those being written to it (and
    /// those of a store that keeps none).
    held: RwLock<HashMap<String, Entry>>,
    /// The ids of each session's grants, forgotten when it ends.
    sessions: RwLock<HashMap<u64, Vec<String>>>,
    /// The task store the server was given, set when it starts serving.
    shared: OnceLock<Arc<dyn TaskStore>>,
    /// This process's own: a session's number means nothing on another replica.
    process: String,
    /// Numbers the writes to the store, so that a write that ends late knows its own.
    writes: std::sync::atomic::AtomicU64,
}

impl Default for Grants {
    fn default() -> Grants {
        let mut nonce = [0u8; 16];
        let process = match getrandom::fill(&mut nonce) {
            Ok(()) => nonce.iter().map(|b| format!("{b:02x}")).collect(),
            Err(_) => format!("{}-{:?}", std::process::id(), Instant::now()),
        };
        Grants {
            inner: Arc::new(Inner {
                held: RwLock::default(),
                sessions: RwLock::default(),
                shared: OnceLock::new(),
                process,
                writes: Default::default(),
            }),
        }
    }
}

/// A remembered approval, as [`Grants::list`] shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Granted {
    /// What [`Grants::revoke_id`] revokes it by.
    #[serde(skip)]
    pub id: String,
    /// Who may call: a token's subject, its client, or `local user`.
    pub caller: String,
    /// The caller's identity ([`Caller::identity`]).
    pub identity: String,
    /// The tool.
    pub tool: String,
    /// The argument values it holds for (empty: every call of the tool).
    pub arguments: JsonObject,
    /// Whether it holds in one session only.
    pub session: bool,
    /// Until when, in milliseconds since the Unix epoch.
    pub expires_ms: u64,
}

struct Entry {
    until: Instant,
    granted: Granted,
    /// `Some(write)` while being written to the shared store (then it is the store's).
    writing: Option<u64>,
}

/// What a grant covers.
pub(crate) struct Scope<'a> {
    pub(crate) caller: &'a Caller,
    pub(crate) tool: &'a str,
    /// The argument values it is bound to (`None`: every call of the tool).
    pub(crate) bound: Option<&'a JsonObject>,
    pub(crate) session: Option<u64>,
}

impl Grants {
    /// Approves `caller`'s calls of `tool` for `ttl` from now (written to the shared store,
    /// when there is one, in the background).
    pub fn grant(&self, caller: &Caller, tool: &str, ttl: Duration) {
        let scope = Scope {
            caller,
            tool,
            bound: None,
            session: None,
        };
        if let Some(writing) = self.remember(&scope, ttl) {
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => drop(runtime.spawn(writing)),
                Err(_) => self.keep_here(&self.id(&scope)),
            }
        }
    }

    /// Whether every call of `tool` by `caller` is approved now (here, or in the shared
    /// store).
    pub async fn holds(&self, caller: &Caller, tool: &str) -> bool {
        self.covers(caller, tool, None, &[]).await
    }

    /// Forgets every approval of `caller`'s calls of `tool` (whatever its arguments or
    /// session; in the shared store too): whether there was one.
    pub async fn revoke(&self, caller: &Caller, tool: &str) -> bool {
        let mut any = false;
        for granted in self.list().await {
            if granted.identity == caller.identity() && granted.tool == tool {
                any |= self.revoke_id(&granted.id).await;
            }
        }
        any
    }

    /// Forgets the approval `id` ([`Granted::id`]), here and in the shared store: whether
    /// there was one.
    pub async fn revoke_id(&self, id: &str) -> bool {
        let here = self.write().remove(id).is_some();
        let there = match self.inner.shared.get() {
            Some(store) => store.forget(id).await.unwrap_or_else(|err| {
                tracing::warn!(%err, "a remembered approval could not be revoked in the task store");
                false
            }),
            None => false,
        };
        here || there
    }

    /// Every live approval, here and in the shared store, the first to end first.
    pub async fn list(&self) -> Vec<Granted> {
        let now = Instant::now();
        let mut listed: HashMap<String, Granted> = self
            .read()
            .iter()
            .filter(|(_, entry)| entry.until > now)
            .map(|(id, entry)| (id.clone(), entry.granted.clone()))
            .collect();
        if let Some(store) = self.inner.shared.get() {
            match store.remembered_all().await {
                Ok(kept) => {
                    for (id, description, _) in kept {
                        if let Ok(mut granted) = serde_json::from_str::<Granted>(&description) {
                            granted.id = id.clone();
                            listed.insert(id, granted);
                        }
                    }
                }
                Err(err) => tracing::warn!(%err, "the remembered approvals could not be listed"),
            }
        }
        let mut listed: Vec<Granted> = listed.into_values().collect();
        listed.sort_by(|a, b| (a.expires_ms, &a.id).cmp(&(b.expires_ms, &b.id)));
        listed
    }

    /// Whether a call of `tool` by `caller` (in `session`) is approved now: a grant of
    /// every call, or one bound to the values `bindings` name (each as a rule would bind
    /// this call), for any session or this one.
    pub(crate) async fn covers(
        &self,
        caller: &Caller,
        tool: &str,
        session: Option<u64>,
        bindings: &[JsonObject],
    ) -> bool {
        let mut ids = Vec::with_capacity(2 * (1 + bindings.len()));
        for session in [None, session]
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
        {
            let bounds = std::iter::once(None).chain(bindings.iter().map(Some));
            for bound in bounds {
                ids.push(self.id(&Scope {
                    caller,
                    tool,
                    bound,
                    session,
                }));
            }
        }
        if self.held_among(&ids) {
            return true;
        }
        let Some(store) = self.inner.shared.get() else {
            return false;
        };
        for id in &ids {
            match store.remembered(id).await {
                Ok(true) => return true,
                Ok(false) => {}
                Err(err) => {
                    tracing::warn!(%err, "whether an approval is remembered is unknown: asked anew");
                }
            }
        }
        false
    }

    /// Whether this process holds a live grant of every call of `tool` by `caller`, for any
    /// session or for `session` (the shared store is not asked).
    pub(crate) fn held_here(&self, caller: &Caller, session: Option<u64>, tool: &str) -> bool {
        if self.read().is_empty() {
            return false;
        }
        let id = |session| {
            self.id(&Scope {
                caller,
                tool,
                bound: None,
                session,
            })
        };
        let mut ids = vec![id(None)];
        if session.is_some() {
            ids.push(id(session));
        }
        self.held_among(&ids)
    }

    /// Whether a grant may be held: one is kept here, or a shared store may keep some.
    pub(crate) fn may_hold(&self) -> bool {
        self.inner.shared.get().is_some() || !self.read().is_empty()
    }

    /// Grant `scope`'s id: a digest of the caller's identity, the tool, the bound argument
    /// values (canonical), and the session (of this process).
    fn id(&self, scope: &Scope<'_>) -> String {
        use sha2::Digest;
        let mut bound = Vec::new();
        if let Some(values) = scope.bound {
            let normalized = canonical::normalized(&serde_json::Value::Object(values.clone()));
            canonical::write(&normalized, &mut bound);
        }
        let session = scope
            .session
            .map(|n| format!("{}:{n}", self.inner.process))
            .unwrap_or_default();
        let key = serde_json::json!([
            scope.caller.identity(),
            scope.tool,
            String::from_utf8_lossy(&bound),
            session
        ]);
        sha2::Sha256::digest(key.to_string().as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether one of `ids` is held live here.
    fn held_among(&self, ids: &[String]) -> bool {
        let now = Instant::now();
        let held = self.read();
        ids.iter()
            .any(|id| held.get(id).is_some_and(|entry| entry.until > now))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Entry>> {
        self.inner
            .held
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<String, Entry>> {
        self.inner
            .held
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
