//! The sign-in state a Redis task store keeps (`put`, `put_new`, `read`, `take`, `count`,
//! `scan`), against Debian's `redis-server` on loopback: shared by two stores on one Redis
//! (two replicas), atomic between them, gone when its time to live runs out, and kept apart
//! from another store's under its own prefix.

use std::time::Duration;

use toolsmith::task::{RedisStore, TaskStore};

use super::task_store_redis::start;

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::test]
async fn two_replicas_share_the_state_and_one_taker_wins() {
    let redis = start().await;
    let a = RedisStore::open(&redis.url).unwrap();
    let b = RedisStore::open(&redis.url).unwrap();

    a.put("client:x", "{\"name\":\"x\"}", MINUTE).await.unwrap();
    assert_eq!(
        b.read("client:x").await.unwrap().as_deref(),
        Some("{\"name\":\"x\"}")
    );
    b.put("client:x", "replaced", MINUTE).await.unwrap();
    assert_eq!(
        a.read("client:x").await.unwrap().as_deref(),
        Some("replaced")
    );
    assert_eq!(a.read("client:none").await.unwrap(), None);

    // Each code is taken by both replicas at once: exactly one of them has it.
    for round in 0..50 {
        let key = format!("code:{round}");
        a.put(&key, "grant", MINUTE).await.unwrap();
        let (from_a, from_b) = tokio::join!(a.take(&key), b.take(&key));
        let won: Vec<String> = [from_a.unwrap(), from_b.unwrap()]
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(won, ["grant"], "round {round}");
    }
    // Of two replicas putting one key only when absent, one keeps it.
    for round in 0..50 {
        let key = format!("jti:{round}");
        let (to_a, to_b) = tokio::join!(a.put_new(&key, "a", MINUTE), b.put_new(&key, "b", MINUTE));
        let (to_a, to_b) = (to_a.unwrap(), to_b.unwrap());
        assert!(to_a ^ to_b, "round {round}: {to_a} {to_b}");
        let kept = a.read(&key).await.unwrap().unwrap();
        assert_eq!(kept, if to_a { "a" } else { "b" });
    }
    // Counts from both replicas add up.
    let counted: Vec<u64> = futures_counts(&a, &b).await;
    assert_eq!(counted, (1..=20).collect::<Vec<u64>>());
}

/// Ten counts on each replica at once, in the order their answers say.
async fn futures_counts(a: &RedisStore, b: &RedisStore) -> Vec<u64> {
    let mut all = Vec::new();
    for _ in 0..10 {
        let (x, y) = tokio::join!(a.count("rate:ip", MINUTE), b.count("rate:ip", MINUTE));
        all.extend([x.unwrap(), y.unwrap()]);
    }
    all.sort_unstable();
    all
}

#[tokio::test]
async fn values_and_counts_expire_in_redis() {
    let redis = start().await;
    let store = RedisStore::open(&redis.url).unwrap();
    store
        .put("short", "x", Duration::from_millis(100))
        .await
        .unwrap();
    store.put("long", "y", MINUTE).await.unwrap();
    assert!(
        !store
            .put_new("short", "z", Duration::from_millis(100))
            .await
            .unwrap()
    );
    let mut gone = false;
    for _ in 0..250 {
        if store.read("short").await.unwrap().is_none() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(gone, "a value outlived its time to live");
    assert_eq!(store.read("long").await.unwrap().as_deref(), Some("y"));
    assert!(store.put_new("short", "z", MINUTE).await.unwrap());

    // Counted again and again, a window still ends its time after its first count: a
    // window that each count renewed would never start again from 1.
    let window = Duration::from_millis(300);
    assert_eq!(store.count("burst", window).await.unwrap(), 1);
    let mut restarted = false;
    for _ in 0..500 {
        if store.count("burst", window).await.unwrap() == 1 {
            restarted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(restarted, "the window never ended");
    let err = store.count("long", window).await.unwrap_err();
    assert!(
        err.to_string().starts_with("the task store failed"),
        "{err}"
    );
}

#[tokio::test]
async fn scan_lists_a_prefix_without_the_namespace_and_each_store_its_own() {
    let redis = start().await;
    let store = RedisStore::open(&redis.url).unwrap();
    let other = RedisStore::open(&redis.url).unwrap().prefix("other:task:");
    for i in 0..1200 {
        store
            .put(&format!("consent:{i:04}"), &i.to_string(), MINUTE)
            .await
            .unwrap();
    }
    store.put("consent*", "a star", MINUTE).await.unwrap();
    store.put("client:1", "c", MINUTE).await.unwrap();
    other.put("consent:other", "o", MINUTE).await.unwrap();

    let listed = store.scan("consent:").await.unwrap();
    assert_eq!(listed.len(), 1200, "every one, named once");
    assert_eq!(listed[0], ("consent:0000".to_owned(), "0".to_owned()));
    assert!(listed.windows(2).all(|w| w[0].0 < w[1].0), "in key order");
    // A prefix is matched as it is written, not as a pattern.
    assert_eq!(
        store.scan("consent*").await.unwrap(),
        [("consent*".to_owned(), "a star".to_owned())]
    );
    assert_eq!(
        other.scan("").await.unwrap(),
        [("consent:other".to_owned(), "o".to_owned())]
    );
    assert_eq!(other.read("client:1").await.unwrap(), None);
    assert_eq!(other.take("client:1").await.unwrap(), None);
    assert_eq!(store.take("client:1").await.unwrap().as_deref(), Some("c"));
}
