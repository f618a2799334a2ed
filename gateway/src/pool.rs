//! One session of an upstream per caller: opened at the caller's first call with the
//! caller's credentials (a token of the upstream's, a child's environment), kept for the
//! next, closed when idle; at most so many at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::Peer;
use tokio::sync::mpsc;
use toolsmith::ToolError;
use toolsmith::context::Caller;

use crate::Upstream;
use crate::identity::{ActsAs, Asking, PerCaller, Refusal, UpstreamToken};
use crate::link::{Link, Running};
use crate::meter::{Meter, Open};
use crate::relay::{Downstream, Relay};
use crate::session::Credential;

/// How long before its token expires a session is replaced by one with a fresh token.
const FRESH_FOR: Duration = Duration::from_secs(30);

/// The sessions of one upstream, by caller.
pub(crate) struct Pool {
    upstream: Upstream,
    /// Its bounds (`Upstream::per_caller`, else the defaults).
    limits: PerCaller,
    /// How it gets a caller's token (`Upstream::acts_as`).
    acts_as: Option<Arc<dyn ActsAs>>,
    sessions: Mutex<CallerSessions>,
    /// What it counts of its sessions.
    meter: Meter,
    /// One opening at a time per caller (a sign-in may take minutes: other callers go on).
    openers: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

#[derive(Default)]
struct CallerSessions {
    by_caller: HashMap<String, Arc<CallerSession>>,
    /// Sessions being opened (they count toward the bound).
    opening: usize,
}

/// One caller's session.
struct CallerSession {
    peer: Peer<RoleClient>,
    relay: Arc<Relay>,
    /// Dropped with the session: the session ends (a child is stopped).
    _running: Running,
    /// Counted as open until then.
    _open: Open,
    token: Option<UpstreamToken>,
    refusal: Refusal,
    last_used: Mutex<Instant>,
    in_use: AtomicUsize,
}

impl CallerSession {
    fn idle_for(&self) -> Option<Duration> {
        (self.in_use.load(Ordering::Acquire) == 0).then(|| {
            self.last_used
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .elapsed()
        })
    }

    fn stale(&self) -> bool {
        self.peer.is_transport_closed()
            || self
                .token
                .as_ref()
                .is_some_and(|t| t.expires_within(FRESH_FOR))
    }
}

/// A place within the bound for a session being opened: given back when the opening fails
/// or is given up (the call cancelled), else settled once the session is in.
struct Reserved<'a>(&'a Pool);

impl Reserved<'_> {
    /// The session is in `sessions`: it counts there now.
    fn settle(self, sessions: &mut CallerSessions) {
        sessions.opening -= 1;
        std::mem::forget(self);
    }
}

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        self.0.lock().opening -= 1;
    }
}

/// A session in use by one call: not idle until dropped.
struct Busy(Arc<CallerSession>);

impl Drop for Busy {
    fn drop(&mut self) {
        *self.0.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        self.0.in_use.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Pool {
    /// The sessions of `upstream`, within its bounds, each with the credentials it gets for
    /// its caller; idle ones are closed by a sweeper that ends with the pool.
    pub(crate) fn new(upstream: Upstream) -> Arc<Pool> {
        let identity = upstream
            .acts_as
            .as_ref()
            .map_or("environment", |acts_as| acts_as.identity());
        let pool = Arc::new(Pool {
            limits: upstream.per_caller.clone().unwrap_or_default(),
            acts_as: upstream.acts_as.clone(),
            meter: Meter::of(&upstream, identity),
            upstream,
            sessions: Mutex::new(CallerSessions::default()),
            openers: Mutex::new(HashMap::new()),
        });
        let every = (pool.limits.idle_after() / 4)
            .clamp(Duration::from_millis(250), Duration::from_secs(30));
        tokio::spawn(sweep(Arc::downgrade(&pool), every));
        pool
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CallerSessions> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Calls the tool in `caller`'s session (opened if it has none). A token the upstream
    /// refuses (401) is forgotten and the call sent once more with a fresh one: a refused
    /// request was not run.
    pub(crate) async fn call(
        self: &Arc<Self>,
        caller: &Caller,
        asking: &Asking,
        params: CallToolRequestParams,
        downstream: Arc<Downstream>,
    ) -> Result<CallToolResult, ToolError> {
        let name = self.upstream.name();
        let mut refused_before = false;
        loop {
            let busy = self.session(caller, asking).await?;
            let session = busy.0.clone();
            let failed = match session
                .relay
                .call(&session.peer, params.clone(), downstream.clone())
                .await
            {
                Ok(result) => {
                    tracing::debug!(upstream = %name, caller = %caller.identity(), upstream_subject = ?session.token.as_ref().and_then(|t| t.subject.as_deref()), tool = %params.name, "called as the caller");
                    return Ok(result);
                }
                Err(err) => err,
            };
            drop(busy);
            let refused = session.refusal.take();
            if refused.is_some() || Link::lost(&failed) || session.peer.is_transport_closed() {
                self.close(caller, &session);
            }
            let Some(challenge) = refused else {
                return Err(ToolError::new(crate::told::failed(name, "call", &failed)));
            };
            self.meter.token_refused();
            if let Some(acts_as) = &self.acts_as {
                acts_as.rejected(caller, asking).await;
            }
            if refused_before {
                return Err(refused_twice(name, caller, &challenge));
            }
            tracing::info!(upstream = %name, caller = %caller.identity(), "the upstream refused the caller's token (401): getting a fresh one");
            refused_before = true;
        }
    }

    /// `caller`'s open session, else one opened now (within the bound): in use from the
    /// moment it is taken (never closed as idle meanwhile).
    async fn session(&self, caller: &Caller, asking: &Asking) -> Result<Busy, ToolError> {
        let who = caller.identity().to_owned();
        let open = self.taken(&who);
        if let Some(busy) = open {
            if self.current(caller, asking, &busy.0).await {
                return Ok(busy);
            }
            tracing::info!(upstream = %self.upstream.name(), caller = %who, "the caller's token is no longer theirs to send (a new one came, or they signed out): their session is closed");
            self.close(caller, &busy.0);
        }
        let opener = self
            .openers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(who.clone())
            .or_default()
            .clone();
        let _one = opener.lock().await;
        // Opened meanwhile by another call of this caller's.
        if let Some(busy) = self.taken(&who) {
            return Ok(busy);
        }
        // The caller's token first (a sign-in may wait minutes for the user): only the
        // session itself takes a place within the bound.
        let token = self.token_of(caller, asking).await?;
        let reserved = self.reserve(&who)?;
        let session = Arc::new(self.open(caller, asking, token).await?);
        let mut sessions = self.lock();
        session.in_use.fetch_add(1, Ordering::AcqRel);
        sessions.by_caller.insert(who, session.clone());
        reserved.settle(&mut sessions);
        Ok(Busy(session))
    }

    /// `who`'s open session that is not stale, taken for a call (under the lock that
    /// closing idle sessions takes).
    fn taken(&self, who: &str) -> Option<Busy> {
        let sessions = self.lock();
        let session = sessions.by_caller.get(who).filter(|s| !s.stale())?.clone();
        session.in_use.fetch_add(1, Ordering::AcqRel);
        Some(Busy(session))
    }

    /// The token `caller`'s session is to send, when the upstream acts as each user.
    async fn token_of(
        &self,
        caller: &Caller,
        asking: &Asking,
    ) -> Result<Option<UpstreamToken>, ToolError> {
        match &self.acts_as {
            Some(acts_as) => {
                let token = acts_as
                    .token_for(self.upstream.name(), caller, asking)
                    .await;
                if token.is_err() {
                    self.meter.token_failed();
                }
                token.map(Some)
            }
            None => Ok(None),
        }
    }

    /// Whether `session`'s token is still its caller's to send.
    async fn current(&self, caller: &Caller, asking: &Asking, session: &CallerSession) -> bool {
        match (&self.acts_as, &session.token) {
            (Some(acts_as), Some(token)) => acts_as.still_current(caller, asking, token).await,
            _ => true,
        }
    }

    /// Room for one more session (`who`'s stale one closed; past the bound, the least
    /// recently used idle one), or the refusal that says there is none.
    fn reserve(&self, who: &str) -> Result<Reserved<'_>, ToolError> {
        let mut sessions = self.lock();
        sessions.by_caller.remove(who);
        if sessions.by_caller.len() + sessions.opening >= self.limits.max_sessions() {
            let oldest = sessions
                .by_caller
                .iter()
                .filter_map(|(caller, session)| {
                    session.idle_for().map(|idle| (idle, caller.clone()))
                })
                .max();
            match oldest {
                Some((_, caller)) => {
                    sessions.by_caller.remove(&caller);
                    tracing::info!(upstream = %self.upstream.name(), "closed the least recently used caller's session: the bound of sessions was reached");
                }
                None => {
                    self.meter.refused();
                    return Err(ToolError::new(format!(
                        "upstream '{}' has a session for each of {} callers, all in use (its bound): try again in a moment",
                        self.upstream.name(),
                        self.limits.max_sessions()
                    )));
                }
            }
        }
        sessions.opening += 1;
        Ok(Reserved(self))
    }

    /// A session for `caller`, with its credentials (a token refused at the handshake is
    /// forgotten and fetched once more).
    async fn open(
        &self,
        caller: &Caller,
        asking: &Asking,
        mut token: Option<UpstreamToken>,
    ) -> Result<CallerSession, ToolError> {
        let name = self.upstream.name();
        let mut refused_before = false;
        loop {
            let refusal = Refusal::default();
            let credential = Credential {
                bearer: token.as_ref().map(|t| t.access.clone()),
                caller: Some(caller.clone()),
                refusal: Some(refusal.clone()),
                // Acting as the caller: never with the gateway's own headers.
                without_headers: self.acts_as.is_some(),
            };
            // What a caller's session says about its lists is not followed: the tools
            // served are the ones listed at connect.
            let (tell, _) = mpsc::unbounded_channel();
            let relay = Arc::new(Relay::default());
            match self
                .upstream
                .start_as(tell, relay.clone(), &credential)
                .await
            {
                Ok(running) => {
                    tracing::info!(upstream = %name, caller = %caller.identity(), upstream_subject = ?token.as_ref().and_then(|t| t.subject.as_deref()), "opened the caller's own session");
                    return Ok(CallerSession {
                        peer: running.peer().clone(),
                        relay,
                        _running: running,
                        _open: self.meter.opened(),
                        token,
                        refusal,
                        last_used: Mutex::new(Instant::now()),
                        in_use: AtomicUsize::new(0),
                    });
                }
                Err(err) => match refusal.take() {
                    Some(challenge) => {
                        self.meter.token_refused();
                        if let Some(acts_as) = &self.acts_as {
                            acts_as.rejected(caller, asking).await;
                        }
                        if refused_before || self.acts_as.is_none() {
                            return Err(refused_twice(name, caller, &challenge));
                        }
                        refused_before = true;
                        token = self.token_of(caller, asking).await?;
                    }
                    None => return Err(ToolError::new(err.to_string())),
                },
            }
        }
    }

    /// Closes `caller`'s session if it is still `session`.
    fn close(&self, caller: &Caller, session: &Arc<CallerSession>) {
        let mut sessions = self.lock();
        if sessions
            .by_caller
            .get(caller.identity())
            .is_some_and(|open| Arc::ptr_eq(open, session))
        {
            sessions.by_caller.remove(caller.identity());
        }
    }

    /// Closes the sessions idle for longer than the limit.
    fn sweep(&self) {
        let idle = self.limits.idle_after();
        let mut sessions = self.lock();
        let before = sessions.by_caller.len();
        sessions
            .by_caller
            .retain(|_, session| session.idle_for().is_none_or(|for_| for_ < idle));
        let closed = before - sessions.by_caller.len();
        drop(sessions);
        if closed > 0 {
            tracing::info!(upstream = %self.upstream.name(), closed, "closed callers' sessions idle for {idle:?}");
        }
        // Openers of callers with no session and no opening under way.
        let sessions = self.lock();
        self.openers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|who, opener| {
                sessions.by_caller.contains_key(who) || Arc::strong_count(opener) > 1
            });
    }
}

/// Sweeps `pool` every `every` while it lives.
async fn sweep(pool: Weak<Pool>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        match pool.upgrade() {
            Some(pool) => pool.sweep(),
            None => return,
        }
    }
}

/// The error of a token refused again after a fresh one.
fn refused_twice(upstream: &str, caller: &Caller, challenge: &str) -> ToolError {
    let who = caller.subject().unwrap_or("the caller");
    let said = crate::told::without_urls(challenge);
    ToolError::new(format!(
        "upstream '{upstream}' refused the token it was given for {who} (401), a fresh one too: {said}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_place_given_up_is_given_back_and_a_settled_one_counts_once() {
        let pool = Pool::new(Upstream::stdio("x", "true").per_caller(PerCaller::new().max(1)));
        // An opening given up (its call cancelled, or its start failed) frees its place.
        drop(pool.reserve("alice").unwrap());
        let reserved = pool.reserve("bob").expect("the place was given back");
        // Past the bound while it is taken: refused, saying so.
        let err = pool.reserve("carol").err().unwrap();
        assert!(err.message().contains("all in use"), "{err}");
        drop(reserved);
        assert_eq!(pool.lock().opening, 0);
    }
}
