//! Who hears about resource changes: the sessions subscribed to each URI
//! (`resources/subscribe` up to 2025-11-25, a `subscriptions/listen` stream on 2026-07-28),
//! and every session that asked about resources, for the list; and, for a server whose set
//! changes while serving, who hears that the tool, resource or prompt list changed. What a
//! tool's [`Resources`](crate::context::Resources) handle says reaches them here.
//!
//! Bounded: a session holds at most [`MAX_SUBSCRIPTIONS`] URIs, over `resources/subscribe`
//! and all its listen streams together, each at most [`MAX_SUBSCRIBED_URI`] long; what a
//! session holds goes when it ends ([`SessionGuard`]). Sending happens in the background on
//! the serving runtime, never in the tool's thread, to every listener at once, each given
//! [`SEND_TIMEOUT`]: a client that stops reading delays nobody else.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::ResourceUpdatedNotificationParam;
use rmcp::service::{Peer, SubscriptionSink};

use crate::context::Updates;
use crate::registry::Changed;
use held::Inner;

pub(crate) use crate::context::{MAX_SUBSCRIBED_URI, MAX_SUBSCRIPTIONS};

/// The most subscriptions the server holds at once, over all its sessions: a thousand
/// sessions each at [`MAX_SUBSCRIPTIONS`] would otherwise hold about 4 GB of URIs.
pub(crate) const MAX_SUBSCRIPTIONS_TOTAL: usize = 16 * 1024;

/// How long one notification may take to leave for one listener.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// Where one listener hears it.
#[derive(Clone)]
enum Ear {
    /// The session's peer (`resources/subscribe`).
    Peer(Peer<RoleServer>),
    /// A `subscriptions/listen` stream.
    Listen(SubscriptionSink),
}

/// One listener: a session (`(session, 0)`), or one of its listen streams (`(session, n)`).
type Key = (u64, u64);

/// Why a subscription was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The session holds [`MAX_SUBSCRIPTIONS`] URIs already.
    Full,
    /// The server holds [`MAX_SUBSCRIPTIONS_TOTAL`] subscriptions already.
    ServerFull,
    /// The URI is longer than [`MAX_SUBSCRIBED_URI`].
    TooLong,
}

/// The server's subscriptions, shared by its sessions.
#[derive(Default)]
pub(crate) struct Subscriptions {
    inner: Mutex<Inner<Ear>>,
    /// The other replicas, when they share a store (`shared.rs`).
    shared: shared::SharedSlot,
}

impl Subscriptions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<Ear>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Session `session` subscribes to `uri` (`resources/subscribe`).
    pub(crate) fn subscribe(
        &self,
        session: u64,
        uri: &str,
        peer: Peer<RoleServer>,
    ) -> Result<(), Refused> {
        let mut inner = self.lock();
        inner.runtime();
        let ear = Ear::Peer(peer);
        inner.hold((session, 0), uri, &ear)?;
        inner.lists.insert((session, 0), ear);
        Ok(())
    }

    /// Session `session` unsubscribes from `uri`.
    pub(crate) fn unsubscribe(&self, session: u64, uri: &str) {
        self.lock().release((session, 0), uri);
    }

    /// Session `session` hears list changes (it asked about resources).
    pub(crate) fn hear_lists(&self, session: u64, peer: Peer<RoleServer>) {
        let mut inner = self.lock();
        inner.runtime();
        inner.lists.entry((session, 0)).or_insert(Ear::Peer(peer));
    }

    /// Session `session` hears that the tool, resource and prompt lists changed (it is a
    /// session that can hear notifications, of a server whose set can change).
    pub(crate) fn hear_every_list(&self, session: u64, peer: Peer<RoleServer>) {
        let mut inner = self.lock();
        inner.runtime();
        let ear = Ear::Peer(peer);
        let key = (session, 0);
        inner.tool_lists.entry(key).or_insert_with(|| ear.clone());
        inner.prompt_lists.entry(key).or_insert_with(|| ear.clone());
        inner.lists.entry(key).or_insert(ear);
    }

    /// A `subscriptions/listen` stream of `session`, for `uris` (as many as the session's
    /// budget leaves) and the lists `lists` names; heard until the guard returned is dropped.
    pub(crate) fn listen(
        self: &Arc<Self>,
        session: u64,
        uris: &[String],
        lists: Changed,
        sink: SubscriptionSink,
    ) -> Listening {
        let mut inner = self.lock();
        inner.runtime();
        inner.next += 1;
        let key = (session, inner.next);
        let ear = Ear::Listen(sink);
        for uri in uris {
            if let Err(Refused::Full | Refused::ServerFull) = inner.hold(key, uri, &ear) {
                break;
            }
        }
        if lists.resources {
            inner.lists.insert(key, ear.clone());
        }
        if lists.prompts {
            inner.prompt_lists.insert(key, ear.clone());
        }
        if lists.tools {
            inner.tool_lists.insert(key, ear);
        }
        Listening {
            subscriptions: self.clone(),
            key,
        }
    }

    /// Session `session` ended: everything it held goes.
    fn forget(&self, session: u64) {
        self.lock().drop_session(session);
    }

    /// Sends `what` to `ears`, each on its own, each within [`SEND_TIMEOUT`].
    fn send(&self, ears: Vec<Ear>, runtime: Option<tokio::runtime::Handle>, what: Change) {
        let Some(runtime) = runtime else { return };
        for ear in ears {
            let what = what.clone();
            runtime.spawn(async move {
                let send = async {
                    match (ear, what) {
                        (Ear::Peer(peer), Change::Resource(uri)) => peer
                            .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                            .await
                            .is_ok(),
                        (Ear::Listen(sink), Change::Resource(uri)) => {
                            sink.notify_resource_updated(uri).await.is_ok()
                        }
                        (Ear::Peer(peer), Change::Resources) => {
                            peer.notify_resource_list_changed().await.is_ok()
                        }
                        (Ear::Listen(sink), Change::Resources) => {
                            sink.notify_resource_list_changed().await.is_ok()
                        }
                        (Ear::Peer(peer), Change::Tools) => {
                            peer.notify_tool_list_changed().await.is_ok()
                        }
                        (Ear::Listen(sink), Change::Tools) => {
                            sink.notify_tool_list_changed().await.is_ok()
                        }
                        (Ear::Peer(peer), Change::Prompts) => {
                            peer.notify_prompt_list_changed().await.is_ok()
                        }
                        (Ear::Listen(sink), Change::Prompts) => {
                            sink.notify_prompt_list_changed().await.is_ok()
                        }
                    }
                };
                match tokio::time::timeout(SEND_TIMEOUT, send).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::debug!("a list or resource notification found its session gone")
                    }
                    Err(_) => {
                        tracing::debug!("a list or resource notification was not read in time")
                    }
                }
            });
        }
    }

    /// The tool list changed: every session and listen stream that hears it is told.
    pub(crate) fn tools_changed(&self) {
        self.tell(
            |inner| inner.tool_lists.values().cloned().collect(),
            Change::Tools,
        );
    }

    /// Tells the listeners `ears` picks (under the lock) that `what` changed.
    fn tell(&self, ears: impl FnOnce(&Inner<Ear>) -> Vec<Ear>, what: Change) {
        let (ears, runtime) = {
            let inner = self.lock();
            (ears(&inner), inner.runtime.clone())
        };
        self.send(ears, runtime, what);
    }
}

/// A session's part in the subscriptions: dropped with the session's last handler, it takes
/// everything the session held with it.
pub(crate) struct SessionGuard {
    pub(crate) id: u64,
    subscriptions: Arc<Subscriptions>,
}

impl SessionGuard {
    pub(crate) fn new(id: u64, subscriptions: Arc<Subscriptions>) -> Self {
        SessionGuard { id, subscriptions }
    }
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        self.subscriptions.forget(self.id);
    }
}

/// Ends a listen stream's subscriptions when dropped.
pub(crate) struct Listening {
    subscriptions: Arc<Subscriptions>,
    key: Key,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.subscriptions.lock().drop_listener(self.key);
    }
}

impl Updates for Subscriptions {
    fn updated(&self, uri: &str) {
        self.updated_here(uri);
        self.tell_others(Some(uri));
    }

    fn list_changed(&self) {
        self.list_changed_here();
        self.tell_others(None);
    }
}

impl Subscriptions {
    /// Tells this replica's subscribers of `uri` that it changed.
    fn updated_here(&self, uri: &str) {
        let ears = |inner: &Inner<Ear>| {
            inner
                .by_uri
                .get(uri)
                .map(|ears| ears.values().cloned().collect())
                .unwrap_or_default()
        };
        self.tell(ears, Change::Resource(uri.to_owned()));
    }

    /// Tells this replica's sessions that the resource list changed.
    fn list_changed_here(&self) {
        self.tell(
            |inner| inner.lists.values().cloned().collect(),
            Change::Resources,
        );
    }
}

impl crate::registry::Listener for Subscriptions {
    fn changed(&self, what: Changed) {
        if what.tools {
            self.tools_changed();
        }
        // A registry of this process changed: this replica's sessions only.
        if what.resources {
            self.list_changed_here();
        }
        if what.prompts {
            self.tell(
                |inner| inner.prompt_lists.values().cloned().collect(),
                Change::Prompts,
            );
        }
    }
}

/// What a notification says changed.
#[derive(Clone)]
enum Change {
    /// The resource of this URI.
    Resource(String),
    /// The resource list.
    Resources,
    /// The tool list.
    Tools,
    /// The prompt list.
    Prompts,
}

mod held;
mod shared;

#[cfg(test)]
mod tests;
