//! Who hears about resource changes: the sessions subscribed to each URI
//! (`resources/subscribe` up to 2025-11-25, a `subscriptions/listen` stream on 2026-07-28),
//! and every session that asked about resources, for the list. What a tool's
//! [`Resources`](crate::Resources) handle says reaches them here; sending happens in the
//! background on the serving runtime, never in the tool's thread.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, SubscriptionSink};

use crate::context::Updates;

/// Where one session hears it.
#[derive(Clone)]
enum Ear {
    /// The session's peer (`resources/subscribe`).
    Peer(Peer<RoleServer>),
    /// A `subscriptions/listen` stream.
    Listen(SubscriptionSink),
}

/// One listener of the whole server: a session, or a listen stream.
type Key = (u64, u64);

/// The most URIs one session may be subscribed to at once: a client cannot grow the server's
/// memory without bound by subscribing to every URI a template matches.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// The server's subscriptions, shared by its sessions.
#[derive(Default)]
pub(crate) struct Subscriptions {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// By URI: who subscribed.
    by_uri: HashMap<String, HashMap<Key, Ear>>,
    /// Who hears that the list changed.
    lists: HashMap<Key, Ear>,
    /// Where sending runs (the serving runtime, captured from the first subscriber).
    runtime: Option<tokio::runtime::Handle>,
    next: u64,
}

impl Subscriptions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Drops the sessions whose transport closed (on every subscription, so that ended
    /// sessions do not pile up).
    fn prune(inner: &mut Inner) {
        let open = |ear: &Ear| match ear {
            Ear::Peer(peer) => !peer.is_transport_closed(),
            Ear::Listen(_) => true,
        };
        inner.lists.retain(|_, ear| open(ear));
        inner.by_uri.retain(|_, ears| {
            ears.retain(|_, ear| open(ear));
            !ears.is_empty()
        });
    }

    /// Session `session` subscribes to `uri` (`resources/subscribe`); `Err` when it is
    /// subscribed to [`MAX_SUBSCRIPTIONS`] URIs already.
    pub(crate) fn subscribe(
        &self,
        session: u64,
        uri: String,
        peer: Peer<RoleServer>,
    ) -> Result<(), usize> {
        let mut inner = self.lock();
        Self::prune(&mut inner);
        let key = (session, 0);
        let already = inner
            .by_uri
            .get(&uri)
            .is_some_and(|ears| ears.contains_key(&key));
        let count = inner
            .by_uri
            .values()
            .filter(|ears| ears.contains_key(&key))
            .count();
        if !already && count >= MAX_SUBSCRIPTIONS {
            return Err(MAX_SUBSCRIPTIONS);
        }
        inner
            .runtime
            .get_or_insert_with(tokio::runtime::Handle::current);
        inner
            .by_uri
            .entry(uri)
            .or_default()
            .insert(key, Ear::Peer(peer.clone()));
        inner.lists.insert(key, Ear::Peer(peer));
        Ok(())
    }

    /// Session `session` unsubscribes from `uri`.
    pub(crate) fn unsubscribe(&self, session: u64, uri: &str) {
        let mut inner = self.lock();
        if let Some(ears) = inner.by_uri.get_mut(uri) {
            ears.remove(&(session, 0));
            if ears.is_empty() {
                inner.by_uri.remove(uri);
            }
        }
    }

    /// Session `session` hears list changes (it asked about resources).
    pub(crate) fn hear_lists(&self, session: u64, peer: Peer<RoleServer>) {
        let mut inner = self.lock();
        if !inner.lists.contains_key(&(session, 0)) {
            Self::prune(&mut inner);
        }
        inner
            .runtime
            .get_or_insert_with(tokio::runtime::Handle::current);
        inner.lists.entry((session, 0)).or_insert(Ear::Peer(peer));
    }

    /// A `subscriptions/listen` stream, heard until it is dropped (the guard returned).
    pub(crate) fn listen(
        self: &Arc<Self>,
        session: u64,
        accepted: &SubscriptionFilter,
        sink: SubscriptionSink,
    ) -> Listening {
        let mut inner = self.lock();
        inner
            .runtime
            .get_or_insert_with(tokio::runtime::Handle::current);
        inner.next += 1;
        let key = (session, inner.next);
        let uris = accepted.resource_subscriptions.clone().unwrap_or_default();
        for uri in &uris {
            inner
                .by_uri
                .entry(uri.clone())
                .or_default()
                .insert(key, Ear::Listen(sink.clone()));
        }
        if accepted.resources_list_changed == Some(true) {
            inner.lists.insert(key, Ear::Listen(sink));
        }
        Listening {
            subscriptions: self.clone(),
            key,
            uris,
        }
    }
}

/// Ends a listen stream's subscriptions when dropped.
pub(crate) struct Listening {
    subscriptions: Arc<Subscriptions>,
    key: Key,
    uris: Vec<String>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let mut inner = self.subscriptions.lock();
        inner.lists.remove(&self.key);
        for uri in &self.uris {
            if let Some(ears) = inner.by_uri.get_mut(uri) {
                ears.remove(&self.key);
                if ears.is_empty() {
                    inner.by_uri.remove(uri);
                }
            }
        }
    }
}

impl Updates for Subscriptions {
    fn updated(&self, uri: &str) {
        let (ears, runtime) = {
            let inner = self.lock();
            let ears: Vec<Ear> = inner
                .by_uri
                .get(uri)
                .map(|ears| ears.values().cloned().collect())
                .unwrap_or_default();
            (ears, inner.runtime.clone())
        };
        let (Some(runtime), false) = (runtime, ears.is_empty()) else {
            return;
        };
        let uri = uri.to_owned();
        runtime.spawn(async move {
            for ear in ears {
                let sent = match ear {
                    Ear::Peer(peer) => peer
                        .notify_resource_updated(ResourceUpdatedNotificationParam::new(&uri))
                        .await
                        .is_ok(),
                    Ear::Listen(sink) => sink.notify_resource_updated(&uri).await.is_ok(),
                };
                if !sent {
                    tracing::debug!(
                        uri,
                        "a resource update could not be sent: its session is gone"
                    );
                }
            }
        });
    }

    fn list_changed(&self) {
        let (ears, runtime) = {
            let inner = self.lock();
            let ears: Vec<Ear> = inner.lists.values().cloned().collect();
            (ears, inner.runtime.clone())
        };
        let (Some(runtime), false) = (runtime, ears.is_empty()) else {
            return;
        };
        runtime.spawn(async move {
            for ear in ears {
                let _ = match ear {
                    Ear::Peer(peer) => peer.notify_resource_list_changed().await.is_ok(),
                    Ear::Listen(sink) => sink.notify_resource_list_changed().await.is_ok(),
                };
            }
        });
    }
}
