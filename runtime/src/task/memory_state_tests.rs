//! The memory store's sign-in state, with tokio's clock paused and moved by hand: nothing
//! here waits for real time.

use std::sync::Arc;
use std::time::Duration;

use super::{MAX_ENTRIES, State};
use crate::task::{MemoryStore, StoreFuture, TaskEnd, TaskProgress, TaskRecord, TaskStore};

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::test(start_paused = true)]
async fn a_value_is_gone_once_its_time_to_live_ran_out() {
    let store = MemoryStore::new();
    store.put("a", "1", MINUTE).await.unwrap();
    store.put("b", "2", 2 * MINUTE).await.unwrap();
    tokio::time::advance(MINUTE - Duration::from_millis(1)).await;
    assert_eq!(store.read("a").await.unwrap().as_deref(), Some("1"));
    tokio::time::advance(Duration::from_millis(1)).await;
    assert_eq!(store.read("a").await.unwrap(), None, "expired");
    assert_eq!(store.take("a").await.unwrap(), None);
    assert_eq!(store.scan("").await.unwrap(), [("b".into(), "2".into())]);
    // An expired key is absent: put_new keeps the new value.
    assert!(store.put_new("a", "3", MINUTE).await.unwrap());
    assert_eq!(store.read("a").await.unwrap().as_deref(), Some("3"));
    // put replaces the value and its time to live.
    store.put("b", "4", 10 * MINUTE).await.unwrap();
    tokio::time::advance(5 * MINUTE).await;
    assert_eq!(store.read("b").await.unwrap().as_deref(), Some("4"));
    assert_eq!(store.state.len(), 1, "the expired ones are dropped");
}

#[tokio::test(start_paused = true)]
async fn a_count_expires_a_window_after_its_first_count() {
    let store = MemoryStore::new();
    assert_eq!(store.count("n", MINUTE).await.unwrap(), 1);
    tokio::time::advance(MINUTE / 2).await;
    assert_eq!(store.count("n", MINUTE).await.unwrap(), 2);
    tokio::time::advance(MINUTE / 2).await;
    // The window opened by the first count is over: later counts did not extend it.
    assert_eq!(store.count("n", MINUTE).await.unwrap(), 1);
    assert_eq!(store.read("n").await.unwrap().as_deref(), Some("1"));
    store.put("word", "not a number", MINUTE).await.unwrap();
    let err = store.count("word", MINUTE).await.unwrap_err();
    assert!(err.to_string().contains("not a count"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn take_hands_a_value_to_one_taker_only() {
    let store = Arc::new(MemoryStore::new());
    store.put("code", "grant", MINUTE).await.unwrap();
    let takers: Vec<_> = (0..8)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.take("code").await.unwrap() })
        })
        .collect();
    let mut got = Vec::new();
    for taker in takers {
        got.extend(taker.await.unwrap());
    }
    assert_eq!(got, ["grant"]);
}

#[tokio::test(start_paused = true)]
async fn scan_lists_one_prefix_in_key_order_and_at_most_ten_thousand() {
    let store = MemoryStore::new();
    for i in 0..10_005 {
        store
            .put(&format!("many:{i:05}"), "x", MINUTE)
            .await
            .unwrap();
    }
    store.put("man", "not under many:", MINUTE).await.unwrap();
    store
        .put("many;", "after the prefix", MINUTE)
        .await
        .unwrap();
    let listed = store.scan("many:").await.unwrap();
    assert_eq!(listed.len(), crate::task::MAX_SCANNED);
    assert_eq!(listed[0].0, "many:00000");
    assert!(listed.iter().all(|(key, _)| key.starts_with("many:")));
    assert!(listed.windows(2).all(|w| w[0].0 < w[1].0), "in key order");
    assert!(store.scan("none:").await.unwrap().is_empty());
}

#[tokio::test(start_paused = true)]
async fn past_the_bound_the_entry_that_expires_first_is_dropped() {
    let state = State::default();
    state.put("soonest", "x", MINUTE);
    for i in 1..MAX_ENTRIES {
        state.put(&format!("k{i}"), "x", 2 * MINUTE);
    }
    state.put("latest", "x", 3 * MINUTE);
    assert_eq!(state.len(), MAX_ENTRIES);
    assert_eq!(state.read("soonest"), None, "the first to expire went");
    assert_eq!(state.read("latest").as_deref(), Some("x"));
    assert_eq!(state.read("k1").as_deref(), Some("x"));
    // Replacing a key that is there takes no room.
    state.put("k1", "y", 3 * MINUTE);
    assert_eq!(state.len(), MAX_ENTRIES);
    assert_eq!(state.read("k2").as_deref(), Some("x"));
}

/// A store with the trait's defaults for sign-in state.
struct TasksOnly;

impl TaskStore for TasksOnly {
    fn create<'a>(&'a self, _: &'a TaskRecord, _: Duration) -> StoreFuture<'a, ()> {
        unreachable!()
    }
    fn get<'a>(&'a self, _: &'a str, _: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        unreachable!()
    }
    fn renew<'a>(&'a self, _: &'a str, _: Duration) -> StoreFuture<'a, bool> {
        unreachable!()
    }
    fn progress<'a>(&'a self, _: &'a str, _: &'a TaskProgress, _: u64) -> StoreFuture<'a, ()> {
        unreachable!()
    }
    fn finish<'a>(&'a self, _: &'a str, _: &'a TaskEnd) -> StoreFuture<'a, bool> {
        unreachable!()
    }
}

#[tokio::test]
async fn a_store_without_sign_in_state_says_so() {
    let store = TasksOnly;
    let said = "the task store failed: this task store keeps no sign-in state";
    assert_eq!(
        store.put("k", "v", MINUTE).await.unwrap_err().to_string(),
        said
    );
    assert_eq!(
        store
            .put_new("k", "v", MINUTE)
            .await
            .unwrap_err()
            .to_string(),
        said
    );
    assert_eq!(store.read("k").await.unwrap_err().to_string(), said);
    assert_eq!(store.take("k").await.unwrap_err().to_string(), said);
    assert_eq!(
        store.count("k", MINUTE).await.unwrap_err().to_string(),
        said
    );
    assert_eq!(store.scan("k").await.unwrap_err().to_string(), said);
}
