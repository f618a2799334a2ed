//! The key/value state a [`MemoryStore`](super::MemoryStore) keeps for sign-in (codes,
//! clients, consents, counts): each value with its expiry, in this process's memory.
//!
//! Time is tokio's clock (`tokio::time::Instant`), so that a test with paused time moves it
//! by hand. An expired entry is gone: every operation first drops the expired ones (in
//! expiry order, from an index, so each costs little), and past [`MAX_ENTRIES`] the one that
//! expires first is dropped to make room.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::task::{MAX_SCANNED, StoreError};

/// The most entries kept: past it, the one that expires first is dropped.
pub(super) const MAX_ENTRIES: usize = 100_000;

/// The longest time to live kept as it is (about a century): longer ones are this.
const LONGEST: Duration = Duration::from_secs(100 * 365 * 86_400);

#[derive(Default)]
pub(super) struct State {
    entries: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    by_key: BTreeMap<String, Slot>,
    /// Every entry by its expiry (and the order it was put, to tell equal expiries apart).
    by_expiry: BTreeSet<(Instant, u64, String)>,
    /// How many entries were put so far.
    puts: u64,
}

struct Slot {
    value: String,
    expires: Instant,
    put: u64,
}

/// When something kept for `ttl` from now expires (at least a millisecond, at most
/// [`LONGEST`]).
fn expiry(ttl: Duration) -> Instant {
    Instant::now() + ttl.clamp(Duration::from_millis(1), LONGEST)
}

impl Entries {
    /// Drops every entry that expired.
    fn drop_expired(&mut self) {
        let now = Instant::now();
        while let Some(first) = self.by_expiry.first() {
            if first.0 > now {
                break;
            }
            let (_, _, key) = self.by_expiry.pop_first().expect("there is a first");
            self.by_key.remove(&key);
        }
    }

    fn remove(&mut self, key: &str) -> Option<Slot> {
        let slot = self.by_key.remove(key)?;
        self.by_expiry
            .remove(&(slot.expires, slot.put, key.to_owned()));
        Some(slot)
    }

    /// Keeps `value` under `key` until `expires`, replacing what was there; past
    /// [`MAX_ENTRIES`], the entry that expires first goes.
    fn insert(&mut self, key: &str, value: String, expires: Instant) {
        self.remove(key);
        while self.by_key.len() >= MAX_ENTRIES {
            let Some((_, _, first)) = self.by_expiry.pop_first() else {
                break;
            };
            self.by_key.remove(&first);
        }
        self.puts += 1;
        let put = self.puts;
        self.by_expiry.insert((expires, put, key.to_owned()));
        self.by_key.insert(
            key.to_owned(),
            Slot {
                value,
                expires,
                put,
            },
        );
    }
}

impl State {
    /// Runs `f` on the entries, the expired ones dropped first.
    fn with<T>(&self, f: impl FnOnce(&mut Entries) -> T) -> T {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.drop_expired();
        f(&mut entries)
    }

    pub(super) fn put(&self, key: &str, value: &str, ttl: Duration) {
        self.with(|entries| entries.insert(key, value.to_owned(), expiry(ttl)));
    }

    pub(super) fn put_new(&self, key: &str, value: &str, ttl: Duration) -> bool {
        self.with(|entries| {
            if entries.by_key.contains_key(key) {
                return false;
            }
            entries.insert(key, value.to_owned(), expiry(ttl));
            true
        })
    }

    pub(super) fn read(&self, key: &str) -> Option<String> {
        self.with(|entries| entries.by_key.get(key).map(|slot| slot.value.clone()))
    }

    pub(super) fn take(&self, key: &str) -> Option<String> {
        self.with(|entries| entries.remove(key).map(|slot| slot.value))
    }

    /// One more under `key`, within the window its first count opened.
    pub(super) fn count(&self, key: &str, window: Duration) -> Result<u64, StoreError> {
        self.with(|entries| {
            let (count, expires) = match entries.by_key.get(key) {
                None => (1, expiry(window)),
                Some(slot) => {
                    let count = slot.value.parse::<u64>().map_err(|_| {
                        StoreError::new(format!("`{key}` holds a value, not a count"))
                    })?;
                    (count.saturating_add(1), slot.expires)
                }
            };
            entries.insert(key, count.to_string(), expires);
            Ok(count)
        })
    }

    pub(super) fn scan(&self, prefix: &str) -> Vec<(String, String)> {
        self.with(|entries| {
            entries
                .by_key
                .range::<str, _>((
                    std::ops::Bound::Included(prefix),
                    std::ops::Bound::Unbounded,
                ))
                .take_while(|(key, _)| key.starts_with(prefix))
                .take(MAX_SCANNED)
                .map(|(key, slot)| (key.clone(), slot.value.clone()))
                .collect()
        })
    }

    /// How many entries are kept (the expired ones dropped first).
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.with(|entries| entries.by_key.len())
    }
}

#[cfg(test)]
#[path = "memory_state_tests.rs"]
mod tests;
