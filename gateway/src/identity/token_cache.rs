//! The tokens one upstream's exchange got, per caller: kept while fresh and while the caller
//! presents the same token, at most 10,000 (the oldest caller goes first). Concurrent calls
//! of one caller wait for one exchange.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::UpstreamToken;

/// The most callers whose tokens are kept.
pub(crate) const MAX_CALLERS: usize = 10_000;

/// A token got, for which of the caller's tokens (its SHA-256), and until when it is used.
struct Kept {
    token: UpstreamToken,
    subject: [u8; 32],
    fresh_until: Instant,
}

type Slot = Arc<tokio::sync::Mutex<Option<Kept>>>;

#[derive(Default)]
struct Slots {
    /// Per caller identity: its slot and when it was made (its place in `order`).
    by_caller: HashMap<String, (u64, Slot)>,
    order: BTreeMap<u64, String>,
    made: u64,
}

pub(crate) struct TokenCache {
    slots: Mutex<Slots>,
    max: usize,
}

impl TokenCache {
    pub(crate) fn new(max: usize) -> TokenCache {
        TokenCache {
            slots: Mutex::new(Slots::default()),
            max: max.max(1),
        }
    }

    /// `caller`'s kept token when it is fresh and was got for the same `subject` token, else
    /// the one `fetch` gets (kept until the instant it gives; an error is not kept).
    pub(crate) async fn get_or_fetch<F, Fut>(
        &self,
        caller: &str,
        subject: [u8; 32],
        fetch: F,
    ) -> Result<UpstreamToken, String>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<(UpstreamToken, Instant), String>>,
    {
        let slot = self.slot(caller);
        let mut kept = slot.lock().await;
        if let Some(k) = kept.as_ref()
            && k.subject == subject
            && Instant::now() < k.fresh_until
        {
            return Ok(k.token.clone());
        }
        *kept = None;
        let (token, fresh_until) = fetch().await?;
        *kept = Some(Kept {
            token: token.clone(),
            subject,
            fresh_until,
        });
        Ok(token)
    }

    /// Forgets `caller`'s token.
    pub(crate) fn forget(&self, caller: &str) {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((made, _)) = slots.by_caller.remove(caller) {
            slots.order.remove(&made);
        }
    }

    /// `caller`'s slot, made when it has none (the oldest caller's dropped past the bound).
    fn slot(&self, caller: &str) -> Slot {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, slot)) = slots.by_caller.get(caller) {
            return slot.clone();
        }
        while slots.by_caller.len() >= self.max {
            let Some((_, oldest)) = slots.order.pop_first() else {
                break;
            };
            slots.by_caller.remove(&oldest);
        }
        slots.made += 1;
        let made = slots.made;
        let slot = Slot::default();
        slots
            .by_caller
            .insert(caller.to_owned(), (made, slot.clone()));
        slots.order.insert(made, caller.to_owned());
        slot
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.lock().unwrap().by_caller.len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    fn token(access: &str) -> UpstreamToken {
        UpstreamToken {
            access: access.into(),
            expires_at: None,
            subject: None,
        }
    }

    #[tokio::test]
    async fn fresh_tokens_are_kept_per_caller_and_subject_token_and_the_oldest_go_past_the_bound() {
        let cache = TokenCache::new(2);
        let fetched = AtomicUsize::new(0);
        let later = || Instant::now() + Duration::from_secs(60);
        let get = |caller: &'static str, subject: u8, fresh_until: Instant| {
            let fetched = &fetched;
            let cache = &cache;
            async move {
                cache
                    .get_or_fetch(caller, [subject; 32], || async move {
                        let n = fetched.fetch_add(1, Ordering::SeqCst);
                        Ok((token(&format!("{caller}-{n}")), fresh_until))
                    })
                    .await
                    .unwrap()
                    .access
            }
        };
        assert_eq!(get("alice", 1, later()).await, "alice-0");
        assert_eq!(get("alice", 1, later()).await, "alice-0", "kept");
        assert_eq!(
            get("alice", 2, later()).await,
            "alice-1",
            "another subject token"
        );
        assert_eq!(get("bob", 1, Instant::now()).await, "bob-2");
        assert_eq!(
            get("bob", 1, later()).await,
            "bob-3",
            "a stale token is not used"
        );
        cache.forget("bob");
        assert_eq!(
            get("bob", 1, later()).await,
            "bob-4",
            "a forgotten token is not used"
        );
        assert_eq!(get("carol", 1, later()).await, "carol-5");
        assert_eq!(cache.len(), 2);
        assert_eq!(get("bob", 1, later()).await, "bob-4", "bob is kept");
        assert_eq!(
            get("alice", 2, later()).await,
            "alice-6",
            "alice, the oldest, went"
        );

        let err = cache
            .get_or_fetch("dave", [0; 32], || async { Err("refused".to_owned()) })
            .await;
        assert_eq!(err.unwrap_err(), "refused");
    }
}
