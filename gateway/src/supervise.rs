//! What keeps an upstream running while the gateway serves: it watches the session, starts
//! the upstream again when it stops (with backoff), and serves what it lists (tools,
//! resources, templates, prompts) when that changes (after a restart, or when it says so).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{Peer, QuitReason};
use tokio::sync::{mpsc, oneshot};
use toolsmith::Registry;

use crate::Upstream;
use crate::link::{Link, Running, Served};
use crate::resource_prompt_proxies;
use crate::session::Listed;
use crate::upstream_handler::Changed;

/// The first wait before a restart; each failed one doubles it, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest wait between two restarts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// What the supervisor needs to start the upstream again and serve what it lists then.
pub(crate) struct Supervisor {
    pub(crate) upstream: Upstream,
    pub(crate) link: Arc<Link>,
    pub(crate) served: Served,
    /// The names its tools are served under now (what a new list replaces).
    pub(crate) names: Arc<Mutex<Vec<String>>>,
    pub(crate) listed: Vec<rmcp::model::Tool>,
    /// Its resources, templates and prompts as served now.
    pub(crate) items: Listed,
    /// That one of the upstream's lists changed (see [`crate::upstream_handler`]), and the
    /// sender each start's session gets.
    pub(crate) changed: mpsc::UnboundedReceiver<Changed>,
    pub(crate) tell: mpsc::UnboundedSender<Changed>,
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
                    Some(what) = self.changed.recv() => self.relist(what, &peer).await,
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
                match self
                    .upstream
                    .start(self.tell.clone(), self.link.relay().clone())
                    .await
                {
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
            self.relist_items(running.peer()).await;
        }
    }

    /// The upstream said a list changed: read what changed again (a run of notifications
    /// read once), and serve it if it did.
    async fn relist(&mut self, first: Changed, peer: &Peer<RoleClient>) {
        let (mut tools, mut items) = (first == Changed::Tools, first == Changed::Items);
        while let Ok(what) = self.changed.try_recv() {
            tools |= what == Changed::Tools;
            items |= what == Changed::Items;
        }
        if items {
            self.relist_items(peer).await;
        }
        if !tools {
            return;
        }
        match self.upstream.list(peer).await {
            Ok(listed) if listed != self.listed => {
                self.serve(&listed);
                self.listed = listed;
            }
            Ok(_) => {}
            Err(err) => {
                tracing::warn!(upstream = %self.upstream.name(), "its changed tools are not served: {err}");
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

    /// Reads the upstream's resources, templates and prompts again, and serves them in place
    /// of the ones served so far if they changed (when the gateway's registry is followed).
    async fn relist_items(&mut self, peer: &Peer<RoleClient>) {
        let listed = match self.upstream.list_items(peer).await {
            Ok(listed) if listed == self.items => return,
            Ok(listed) => listed,
            Err(err) => {
                tracing::warn!(upstream = %self.upstream.name(), "its resources and prompts could not be listed again: {err}");
                return;
            }
        };
        let Some(handle) = self.served.get() else {
            self.items = listed;
            return;
        };
        let prefix = self.upstream.tool_prefix();
        let replaced = handle.update(|registry: &mut Registry| {
            resource_prompt_proxies::unserve(registry, &self.items, &prefix, &self.link);
            resource_prompt_proxies::serve(registry, &listed, &prefix, &self.link)
        });
        match replaced {
            Ok(()) => {
                tracing::info!(upstream = %self.upstream.name(), resources = listed.resources.len() + listed.templates.len(), prompts = listed.prompts.len(), "its resources or prompts changed: the lists are updated");
                self.items = listed;
            }
            Err(err) => {
                tracing::warn!(upstream = %self.upstream.name(), "its new resources and prompts are not served: {err}");
            }
        }
    }
}
