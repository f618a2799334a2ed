//! The connection to one upstream while the gateway serves: the peer its tools call while it
//! runs, or why it does not (see `supervise.rs` for what restarts it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{Peer, RunningService};
use tokio::sync::watch;
use toolsmith::{ToolError, registry::RegistryHandle};

use crate::relay::Relay;
use crate::upstream_handler::UpstreamHandler;

/// A running upstream session, as rmcp's client holds it.
pub(crate) type Running = RunningService<RoleClient, UpstreamHandler>;

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
    /// Its calls in flight (across its restarts).
    relay: Arc<Relay>,
}

impl Link {
    pub(crate) fn new(upstream: Arc<str>, peer: Peer<RoleClient>, relay: Arc<Relay>) -> Arc<Link> {
        Arc::new(Link {
            upstream,
            state: watch::Sender::new(State::Up(0, peer)),
            starts: AtomicU64::new(0),
            relay,
        })
    }

    /// Its calls in flight: a call goes through it.
    pub(crate) fn relay(&self) -> &Arc<Relay> {
        &self.relay
    }

    /// The upstream's name.
    pub(crate) fn upstream(&self) -> &str {
        &self.upstream
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
    pub(crate) fn up(&self, peer: Peer<RoleClient>) {
        let start = self.starts.fetch_add(1, Ordering::Relaxed) + 1;
        self.state.send_replace(State::Up(start, peer));
    }

    pub(crate) fn down(&self, why: String) {
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
