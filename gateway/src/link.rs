//! The connection to one upstream while the gateway serves: the peer its tools call while it
//! runs, and the supervisor that restarts it when it stops (with backoff), then serves what
//! it lists from then on.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{Peer, QuitReason, RunningService};
use tokio::sync::{mpsc, oneshot, watch};
use toolsmith::{Registry, RegistryHandle, ToolError};

use crate::Upstream;
use crate::hears::Hears;

/// The first wait before a restart; each failed one doubles it, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest wait between two restarts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A running upstream session, as rmcp's client holds it.
pub(crate) type Running = RunningService<RoleClient, Hears>;

/// Whether the upstream answers.
#[derive(Clone)]
enum State {
    /// Its peer, and which start of it this is (the first is 0).
    Up(u64, Peer<RoleClient>),
    /// Why not, as a call's error says it.
    Down(String),
}

/// What an upstream's tools call through: its peer while it runs.
pub(crate) struct Link {
    upstream: Arc<str>,
    state: watch::Sender<State>,
    /// How many times it was started again.
    starts: AtomicU64,
}

impl Link {
    pub(crate) fn new(upstream: Arc<str>, peer: Peer<RoleClient>) -> Arc<Link> {
        Arc::new(Link {
            upstream,
            state: watch::Sender::new(State::Up(0, peer)),
            starts: AtomicU64::new(0),
        })
    }

    /// The peer to call and which start of the upstream it is, or the error a call answers
    /// while the upstream is down.
    pub(crate) fn peer(&self) -> Result<(u64, Peer<RoleClient>), ToolError> {
        match &*self.state.borrow() {
            State::Up(start, peer) => Ok((*start, peer.clone())),
            State::Down(why) => Err(ToolError::new(format!(
                "upstream '{}' is not running: {why}",
                self.upstream
            ))),
        }
    }

    /// The peer of a start after `start` (the one a call was lost with), within `limit`.
    pub(crate) async fn restarted(&self, start: u64, limit: Duration) -> Option<Peer<RoleClient>> {
        let mut state = self.state.subscribe();
        let later = |s: &State| matches!(s, State::Up(n, _) if *n > start);
        let up = tokio::time::timeout(limit, state.wait_for(later));
        match &*up.await.ok()?.ok()? {
            State::Up(_, peer) => Some(peer.clone()),
            State::Down(_) => None,
        }
    }

    /// The upstream runs again, with `peer`.
    fn up(&self, peer: Peer<RoleClient>) {
        let start = self.starts.fetch_add(1, Ordering::Relaxed) + 1;
        self.state.send_replace(State::Up(start, peer));
    }

    fn down(&self, why: String) {
        self.state.send_replace(State::Down(why));
    }

    /// Whether a call that failed with `err` failed because the upstream went away (its
    /// transport closed), not because of what it answered.
    pub(crate) fn lost(err: &rmcp::ServiceError) -> bool {
        matches!(
            err,
            rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)
        )
    }
}

/// Where a restarted upstream's tools are served: set by [`Mounted::follow`].
///
/// [`Mounted::follow`]: crate::Mounted::follow
pub(crate) type Served = Arc<OnceLock<RegistryHandle>>;

/// What the supervisor needs to start the upstream again and serve what it lists then.
pub(crate) struct Supervisor {
    pub(crate) upstream: Upstream,
    pub(crate) link: Arc<Link>,
    pub(crate) served: Served,
    /// The names its tools are served under now (what a new list replaces).
    pub(crate) names: Arc<Mutex<Vec<String>>>,
    pub(crate) listed: Vec<rmcp::model::Tool>,
    /// That the upstream's tool list changed (see [`crate::hears`]), and the sender each
    /// start's session gets.
    pub(crate) changed: mpsc::UnboundedReceiver<()>,
    pub(crate) tell: mpsc::UnboundedSender<()>,
}

impl Supervisor {
    /// Watches `running` until `stop` (the [`Mounted`](crate::Mounted) is dropped): each time
    /// it stops, its tools answer an error naming it, and it is started again after a wait
    /// that doubles with each failed attempt (from 250 ms to 30 s).
    pub(crate) async fn run(mut self, mut running: Running, mut stop: oneshot::Receiver<()>) {
        loop {
            let peer = running.peer().clone();
            let waiting = running.waiting();
            tokio::pin!(waiting);
            let quit = loop {
                tokio::select! {
                    quit = &mut waiting => break quit,
                    Some(()) = self.changed.recv() => self.relist(&peer).await,
                    _ = &mut stop => return,
                }
            };
            let mut why = match quit {
                Ok(QuitReason::Cancelled) => return,
                Ok(QuitReason::Closed) => "it closed the connection".to_owned(),
                Ok(QuitReason::JoinError(err)) | Err(err) => format!("its session failed: {err}"),
                Ok(_) => "it stopped".to_owned(),
            };
            let mut attempt: u32 = 0;
            let (next, listed) = loop {
                attempt += 1;
                let wait = FIRST_BACKOFF
                    .saturating_mul(2u32.saturating_pow(attempt - 1))
                    .min(MAX_BACKOFF);
                tracing::warn!(upstream = %self.upstream.name(), attempt, wait = ?wait, "upstream stopped ({why}): restarting");
                self.link.down(format!(
                    "{why}; restarting it (attempt {attempt}); the other upstreams still answer"
                ));
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    _ = &mut stop => return,
                }
                match self.upstream.start(self.tell.clone()).await {
                    Ok(next) => match self.upstream.list(&next).await {
                        Ok(listed) => break (next, listed),
                        Err(err) => why = err.to_string(),
                    },
                    Err(err) => why = err.to_string(),
                }
            };
            running = next;
            self.link.up(running.peer().clone());
            tracing::info!(upstream = %self.upstream.name(), attempt, "upstream restarted");
            if listed != self.listed {
                self.serve(&listed);
                self.listed = listed;
            }
        }
    }

    /// The upstream said its tools changed: read them again, and serve them if they did.
    async fn relist(&mut self, peer: &Peer<RoleClient>) {
        // Several notifications in a row: one reading covers them all.
        while self.changed.try_recv().is_ok() {}
        match peer.list_all_tools().await {
            Ok(listed) if listed != self.listed => {
                self.serve(&listed);
                self.listed = listed;
            }
            Ok(_) => {}
            Err(err) => {
                tracing::warn!(upstream = %self.upstream.name(), "its changed tools could not be listed: {err}");
            }
        }
    }

    /// Serves the tools of `listed` in place of the ones served so far, when the gateway's
    /// registry is followed; a list that cannot be served is logged and the old one kept.
    fn serve(&self, listed: &[rmcp::model::Tool]) {
        let Some(handle) = self.served.get() else {
            return;
        };
        let fresh = match self
            .upstream
            .mount(listed.to_vec(), &self.link)
            .and_then(|mounted| self.upstream.registry_of(&mounted.0))
        {
            Ok(fresh) => fresh,
            Err(err) => {
                tracing::warn!(upstream = %self.upstream.name(), "its new list is not served: {err}");
                return;
            }
        };
        let names: Vec<String> = fresh.tools().iter().map(|t| t.name().to_owned()).collect();
        let mut served = self.names.lock().unwrap_or_else(|e| e.into_inner());
        let replaced = handle.update(|registry: &mut Registry| {
            for name in served.iter() {
                registry.remove_tool(name);
            }
            *registry = registry.clone().merge(fresh)?;
            Ok(())
        });
        match replaced {
            Ok(()) => {
                tracing::info!(upstream = %self.upstream.name(), tools = names.len(), "its tools changed: the list is updated");
                *served = names;
            }
            Err(err) => {
                tracing::warn!(upstream = %self.upstream.name(), "its new list is not served: {err}");
            }
        }
    }
}
