//! Sessions (the default; not with `--stateless`): those the server opens itself on the fast
//! path (`opened.rs`), and rmcp's (opened by its service, or restored from `opened.rs` when a
//! request needs it), all screened here first; with a store replicas share, those any
//! replica opened (`shared.rs`; `questions.rs` for the answers to the server's questions,
//! `streams.rs` for the subscriptions that follow a session's `GET` stream):
//!
//! - at most `max` open at once: an `initialize` past the cap gets 503 with `Retry-After`;
//! - with authorization, a session belongs to the caller (issuer and subject) that opened
//!   it: a request for it from anyone else gets 404, as if it did not exist, and the
//!   session is untouched;
//! - a request id is in flight at most once per session: a second request with the same id
//!   gets a JSON-RPC error (as over stdio), and the first its own answer;
//! - `DELETE` answers 204, and 404 for a session that does not exist;
//! - a session nothing is asked of for 5 minutes ends (as rmcp's own do), looked for every
//!   30 s by a timer ([`Sessions::sweeping`]); what is kept of a session here (its owner)
//!   goes with it.

mod admission;
mod id;
mod opened;
mod questions;
mod refusals;
mod replicas;
mod shared;
mod streams;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

pub(super) use self::admission::Admission;
use self::admission::{Claim, Opening};
use self::shared::{Record, Shared};
use crate::context::Caller;
use crate::task::{StoreError, TaskStore};

pub(crate) use opened::{Adopter, Session, SessionCore, restoring};
pub(super) use opened::{RestoreGate, SessionRoute, scoped};
pub(in crate::transport::http) use refusals::store_failed;
use refusals::{full, id_in_use, no_content, not_found};
pub(super) use replicas::Answer;

pub(crate) const DEFAULT_MAX_SESSIONS: usize = 1000;

/// A session's owner: its caller's [identity](Caller::identity) (the token's issuer, subject
/// and client: a token without a subject is told apart by its client).
type Owner = String;

/// The screen in front of rmcp's sessions.
pub(super) struct Sessions {
    manager: Arc<LocalSessionManager>,
    /// The sessions the server opened itself (rmcp's session store, too).
    opened: Arc<opened::OpenedSessions>,
    max: usize,
    /// `initialize` requests on their way to becoming sessions.
    opening: Arc<AtomicUsize>,
    /// With authorization: who opened each session.
    owners: Mutex<HashMap<String, Owner>>,
    /// The request ids in flight, per session.
    in_flight: Arc<Mutex<HashSet<(String, String)>>>,
    /// The store replicas share, when they do (`shared.rs`).
    shared: Option<Arc<Shared>>,
    /// What makes the server's state of a session another replica opened.
    adopter: Option<Arc<dyn Adopter>>,
    /// With a shared store: the sessions whose `GET` stream is here.
    streams: streams::Streams,
}

impl Sessions {
    /// The sessions of this process, or of every replica sharing `store` when it passes
    /// messages between them (then listened to here until the sessions are dropped).
    /// `adopter` makes the server's state of a session another replica opened.
    pub(super) async fn new(
        manager: Arc<LocalSessionManager>,
        max: usize,
        store: Option<Arc<dyn TaskStore>>,
        adopter: Option<Arc<dyn Adopter>>,
    ) -> Result<Arc<Sessions>, StoreError> {
        let joined = match store {
            Some(store) => Shared::join(store).await?,
            None => None,
        };
        let (shared, messages) = match joined {
            Some((shared, messages)) => (Some(Arc::new(shared)), Some(messages)),
            None => (None, None),
        };
        let sessions = Arc::new(Sessions {
            manager,
            opened: Arc::new(opened::OpenedSessions::new(shared.clone())),
            max: max.max(1),
            opening: Arc::default(),
            owners: Mutex::default(),
            in_flight: Arc::default(),
            shared,
            adopter,
            streams: streams::Streams::default(),
        });
        if let Some(messages) = messages {
            Sessions::listening(&sessions, messages);
        }
        Ok(sessions)
    }

    /// Screens a request for a session (or opening one). `caller` is given when
    /// authorization is on; `message` is the method and raw id of a POSTed JSON-RPC message.
    pub(super) async fn screen(
        &self,
        method: &Method,
        headers: &HeaderMap,
        caller: Option<&Caller>,
        message: Option<(Option<&str>, Option<&str>)>,
    ) -> Result<Admission, Response> {
        let mut admission = Admission::default();
        let Some(session) = headers
            .get(&super::headers::MCP_SESSION_ID)
            .and_then(|value| value.to_str().ok())
        else {
            if let Some((Some("initialize"), _)) = message {
                admission.opening = Some((self.open().await?, caller.map(owner)));
            }
            return Ok(admission);
        };
        let mut route = self.opened.route(session);
        let mut exists =
            route.is_some() || self.manager.sessions.read().await.contains_key(session);
        if !exists && let Some(shared) = &self.shared {
            // A store that failed is not a session that is gone (which a client would take
            // as the cue to open another): 503, to try again.
            let record = shared.load(session).await.map_err(|_| store_failed())?;
            // Another replica opened it: served here from now on too, for its owner only.
            if let Some(record) = record
                && caller.is_none_or(|caller| record.owner.as_deref() == Some(&owner(caller)))
            {
                exists = true;
                route = self.adopt(session, record);
            }
        }
        if let Some(caller) = caller
            && self.owners().get(session) != Some(&owner(caller))
        {
            // Not this caller's (or not bound yet, or gone): as if it did not exist.
            return Err(not_found());
        }
        if *method == Method::DELETE {
            if !exists {
                return Err(not_found());
            }
            // One rmcp never served ends here; rmcp ends its own (and tells `opened`), and
            // answers a revision header it does not know (400).
            if known_revision(headers) && self.opened.end(session) {
                tracing::debug!(session, "session ended");
                self.owners().remove(session);
                if let Some(shared) = &self.shared {
                    shared.end(session).await;
                }
                return Err(no_content());
            }
            admission.delete = true;
            admission.session = Some(session.to_owned());
        }
        if let Some((Some(_), Some(id))) = message {
            admission.claim = Some(self.claim(session, id).ok_or_else(|| id_in_use(id))?);
        }
        // The session's own stream (not a call's, resumed: its event id names its stream).
        let resumes_call = || {
            headers
                .get(&super::headers::LAST_EVENT_ID)
                .is_some_and(|last| questions::of_call(last.as_bytes()))
        };
        if *method == Method::GET && self.shared.is_some() && !resumes_call() {
            admission.stream = Some((session.to_owned(), caller.cloned().unwrap_or_default()));
        }
        admission.route = route;
        Ok(admission)
    }

    /// Counts an `initialize` against the cap, or refuses it.
    async fn open(&self) -> Result<Opening, Response> {
        let opening = self.opening.fetch_add(1, Ordering::AcqRel);
        let counted = Opening(self.opening.clone());
        let open = self.manager.sessions.read().await.len() + self.opened.unrestored();
        if open + opening >= self.max {
            tracing::warn!(
                open,
                max = self.max,
                "a new session was refused: at the cap"
            );
            return Err(full());
        }
        Ok(counted)
    }

    /// Keeps `id` in flight in `session`; `None` when it already is.
    fn claim(&self, session: &str, id: &str) -> Option<Claim> {
        // The id as rmcp reads it (`"a"` and `"\u0061"`, `0` and `-0` are one id).
        let id = serde_json::from_str::<rmcp::model::RequestId>(id)
            .ok()
            .and_then(|id| serde_json::to_string(&id).ok())
            .unwrap_or_else(|| id.to_owned());
        let key = (session.to_owned(), id);
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        in_flight.insert(key.clone()).then(|| Claim {
            key: Some(key),
            in_flight: self.in_flight.clone(),
        })
    }

    /// After rmcp answered: binds a new session to its caller, answers a `DELETE` with
    /// 204, and keeps a request id in flight until its response is written.
    pub(super) async fn finish(
        &self,
        mut admission: Admission,
        mut response: Response,
    ) -> Response {
        if let Some((_opening, Some(owner))) = admission.opening
            && let Some(id) = response
                .headers()
                .get(&super::headers::MCP_SESSION_ID)
                .and_then(|v| v.to_str().ok())
        {
            {
                let sessions = self.manager.sessions.read().await;
                let mut owners = self.owners();
                owners
                    .retain(|id, _| sessions.contains_key(id.as_str()) || self.opened.contains(id));
                owners.insert(id.to_owned(), owner.clone());
            }
            if let Some(shared) = &self.shared {
                shared.owned(id, owner).await;
            }
        }
        if admission.delete && response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::NO_CONTENT;
            if let Some(id) = &admission.session {
                self.owners().remove(id.as_str());
                if let Some(shared) = &self.shared {
                    shared.end(id).await;
                }
            }
        }
        if let (Some((id, level)), Some(shared)) = (admission.level.take(), &self.shared)
            && response.status().is_success()
        {
            shared.set_level(&id, level).await;
        }
        let mut response = response;
        if let (Some((id, uri, on, caller)), Some(shared)) =
            (admission.subscription.take(), &self.shared)
            && response.status().is_success()
        {
            shared.subscribe(&id, uri.clone(), on).await;
            if on {
                response = self.subscribed_here(&id, caller, uri, response);
            }
        }
        let response = match admission.stream.take() {
            Some((id, caller)) => self.streaming(&id, caller, response),
            None => response,
        };
        // With replicas, each question names the one that asks it.
        let response = match &self.shared {
            Some(shared) => questions::tagging(response, shared.tag()),
            None => response,
        };
        match admission.claim {
            Some(claim) => super::body::holding(response, claim),
            None => response,
        }
    }

    /// Keeps a session the fast path opened for `admission`'s `initialize` (counted against the
    /// cap until now), with the server's state of it and its handshake; returns its id.
    /// With a shared store, its record is kept there before the client learns its id.
    pub(super) async fn opened(
        &self,
        admission: Admission,
        core: SessionCore,
        handshake: rmcp::model::InitializeRequestParams,
    ) -> String {
        let owner = admission.opening.and_then(|(_opening, owner)| owner);
        let record = self
            .shared
            .as_ref()
            .map(|_| Record::new(handshake.clone(), owner.clone()));
        let id = self.opened.open(core, handshake);
        if let Some(owner) = owner {
            self.owners().insert(id.clone(), owner);
        }
        if let (Some(shared), Some(record)) = (&self.shared, record) {
            shared.save(&id, &record).await;
        }
        id
    }

    /// Ends idle sessions and forgets what is opened of sessions that ended (rmcp ends its own
    /// after its keep-alive without telling): every [`opened::SWEEP`], while the sessions are
    /// served (the task ends with them).
    pub(super) fn sweeping(sessions: &Arc<Sessions>) {
        let sessions: Weak<Sessions> = Arc::downgrade(sessions);
        tokio::spawn(async move {
            let mut timer = tokio::time::interval(opened::SWEEP);
            timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                timer.tick().await;
                let Some(sessions) = sessions.upgrade() else {
                    return;
                };
                sessions.sweep().await;
            }
        });
    }

    /// One look for idle sessions, and for owners whose session is gone; the records of the
    /// sessions used since the last look are kept for longer.
    async fn sweep(&self) {
        if let Some(shared) = &self.shared {
            // Those used since the last look, and those rmcp serves (it ends its idle ones).
            let mut used = self.opened.used_within(opened::SWEEP);
            used.extend(
                self.manager
                    .sessions
                    .read()
                    .await
                    .keys()
                    .map(|id| id.to_string()),
            );
            used.sort_unstable();
            used.dedup();
            let shared = shared.clone();
            tokio::spawn(async move { shared.refresh(used).await });
        }
        self.opened.sweep();
        let open = self.manager.sessions.read().await;
        let mut owners = self.owners();
        let before = owners.len();
        owners.retain(|id, _| open.contains_key(id.as_str()) || self.opened.contains(id));
        if owners.len() < before {
            tracing::debug!(forgotten = before - owners.len(), "ended sessions' owners");
        }
    }

    /// rmcp's session store: where it finds the sessions the server opened.
    pub(super) fn store(&self) -> Arc<opened::OpenedSessions> {
        self.opened.clone()
    }

    /// How many sessions are open.
    #[cfg(feature = "metrics")]
    pub(super) fn count(&self) -> Option<usize> {
        let rmcp = self.manager.sessions.try_read().ok()?.len();
        Some(rmcp + self.opened.unrestored())
    }

    fn owners(&self) -> MutexGuard<'_, HashMap<String, Owner>> {
        self.owners.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The request names no revision, or one rmcp knows.
fn known_revision(headers: &HeaderMap) -> bool {
    headers
        .get(&super::headers::MCP_PROTOCOL_VERSION)
        .is_none_or(|version| {
            rmcp::model::ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .any(|known| known.as_str().as_bytes() == version.as_bytes())
        })
}

/// Who `caller` is, as a session's owner.
fn owner(caller: &Caller) -> Owner {
    caller.identity().to_owned()
}

#[cfg(test)]
mod tests;
