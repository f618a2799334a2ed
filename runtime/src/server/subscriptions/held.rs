//! The bookkeeping of the server's subscriptions: who holds which URI and who hears each
//! list, within the bounds ([`MAX_SUBSCRIPTIONS`] per session, [`MAX_SUBSCRIPTIONS_TOTAL`]
//! in all, [`MAX_SUBSCRIBED_URI`] per URI).

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{Key, MAX_SUBSCRIBED_URI, MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTIONS_TOTAL, Refused};

/// The bookkeeping, over what a listener hears by (`E`: an [`Ear`](super::Ear); the tests use `()`).
pub(super) struct Inner<E> {
    /// By URI: who subscribed.
    pub(super) by_uri: HashMap<String, HashMap<Key, E>>,
    /// By listener: the URIs it holds (to count them and to remove them).
    pub(super) held: BTreeMap<Key, HashSet<String>>,
    /// By session: how many URIs all its listeners hold.
    pub(super) counts: HashMap<u64, usize>,
    /// How many URIs all sessions hold.
    pub(super) total: usize,
    /// Who hears that the resource list changed.
    pub(super) lists: BTreeMap<Key, E>,
    /// Who hears that the tool list changed.
    pub(super) tool_lists: BTreeMap<Key, E>,
    /// Who hears that the prompt list changed.
    pub(super) prompt_lists: BTreeMap<Key, E>,
    /// Where sending runs (the serving runtime, captured from the first subscriber).
    pub(super) runtime: Option<tokio::runtime::Handle>,
    /// The number of the last listen stream opened (each stream's key is `(session, n)`).
    pub(super) next: u64,
}

impl<E> Default for Inner<E> {
    fn default() -> Self {
        Inner {
            by_uri: HashMap::new(),
            held: BTreeMap::new(),
            counts: HashMap::new(),
            total: 0,
            lists: BTreeMap::new(),
            tool_lists: BTreeMap::new(),
            prompt_lists: BTreeMap::new(),
            runtime: None,
            next: 0,
        }
    }
}

impl<E: Clone> Inner<E> {
    pub(super) fn hold(&mut self, key: Key, uri: &str, ear: &E) -> Result<(), Refused> {
        if uri.len() > MAX_SUBSCRIBED_URI {
            return Err(Refused::TooLong);
        }
        if self.held.get(&key).is_some_and(|uris| uris.contains(uri)) {
            return Ok(());
        }
        if self.total >= MAX_SUBSCRIPTIONS_TOTAL {
            return Err(Refused::ServerFull);
        }
        let count = self.counts.entry(key.0).or_default();
        if *count >= MAX_SUBSCRIPTIONS {
            return Err(Refused::Full);
        }
        *count += 1;
        self.total += 1;
        self.held.entry(key).or_default().insert(uri.to_owned());
        let ears = self.by_uri.entry(uri.to_owned()).or_default();
        ears.insert(key, ear.clone());
        Ok(())
    }

    pub(super) fn release(&mut self, key: Key, uri: &str) {
        let Some(uris) = self.held.get_mut(&key) else {
            return;
        };
        if !uris.remove(uri) {
            return;
        }
        if uris.is_empty() {
            self.held.remove(&key);
        }
        self.total = self.total.saturating_sub(1);
        if let Some(count) = self.counts.get_mut(&key.0) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.counts.remove(&key.0);
            }
        }
        if let Some(ears) = self.by_uri.get_mut(uri) {
            ears.remove(&key);
            if ears.is_empty() {
                self.by_uri.remove(uri);
            }
        }
    }

    /// Everything `key` holds, and its ear for the list.
    pub(super) fn drop_listener(&mut self, key: Key) {
        let uris: Vec<String> = self.held.get(&key).into_iter().flatten().cloned().collect();
        for uri in uris {
            self.release(key, &uri);
        }
        self.lists.remove(&key);
        self.tool_lists.remove(&key);
        self.prompt_lists.remove(&key);
    }

    /// Everything every listener of `session` holds (the session and its listen streams):
    /// its own keys only, found by their range (ordered by session), not by a look at every
    /// listener of the server.
    pub(super) fn drop_session(&mut self, session: u64) {
        let range = (session, 0)..=(session, u64::MAX);
        let mut keys: Vec<Key> = self
            .held
            .range(range.clone())
            .map(|(key, _)| *key)
            .collect();
        for ears in [&self.lists, &self.tool_lists, &self.prompt_lists] {
            keys.extend(ears.range(range.clone()).map(|(key, _)| *key));
        }
        keys.sort_unstable();
        keys.dedup();
        for key in keys {
            self.drop_listener(key);
        }
    }

    pub(super) fn runtime(&mut self) {
        self.runtime
            .get_or_insert_with(tokio::runtime::Handle::current);
    }
}
