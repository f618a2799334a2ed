//! The sign-in state a Redis store keeps (`PREFIXstate:KEY`, each with its expiry), shared
//! by the replicas: every operation is one atomic command (a count, one small script).

use std::collections::BTreeSet;
use std::time::Duration;

use redis::Script;
use redis::aio::ConnectionManager;

use crate::task::{MAX_SCANNED, StoreError};

/// What a key of the sign-in state starts with, after the store's prefix.
pub(super) const NAMESPACE: &str = "state:";

/// One more, and the window opened at the first count (ARGV: the window in milliseconds).
const COUNT: &str = r"
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count";

static COUNT_SCRIPT: std::sync::LazyLock<Script> = std::sync::LazyLock::new(|| Script::new(COUNT));

/// The longest time to live kept as it is (about a century): longer ones are this.
const LONGEST_MS: u64 = 100 * 365 * 86_400 * 1000;

/// A time to live in milliseconds, as `PX` takes it (at least 1: Redis refuses `PX 0`).
pub(super) fn px(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).map_or(LONGEST_MS, |ms| ms.clamp(1, LONGEST_MS))
}

/// `SET key value PX ttl`, with `NX` when `only_new`: whether it was set.
pub(super) async fn set(
    connection: &mut ConnectionManager,
    key: &str,
    value: &str,
    ttl: Duration,
    only_new: bool,
) -> Result<bool, StoreError> {
    let mut command = redis::cmd("SET");
    command.arg(key).arg(value).arg("PX").arg(px(ttl));
    if only_new {
        command.arg("NX");
    }
    let set: Option<String> = command
        .query_async(connection)
        .await
        .map_err(StoreError::new)?;
    Ok(set.is_some())
}

/// `GET`, or `GETDEL` when `take`: the value under `key`.
pub(super) async fn get(
    connection: &mut ConnectionManager,
    key: &str,
    take: bool,
) -> Result<Option<String>, StoreError> {
    redis::cmd(if take { "GETDEL" } else { "GET" })
        .arg(key)
        .query_async(connection)
        .await
        .map_err(StoreError::new)
}

/// One more under `key`: the new count.
pub(super) async fn count(
    connection: &mut ConnectionManager,
    key: &str,
    window: Duration,
) -> Result<u64, StoreError> {
    COUNT_SCRIPT
        .key(key)
        .arg(px(window))
        .invoke_async(connection)
        .await
        .map_err(StoreError::new)
}

/// `text` with the characters a `SCAN MATCH` pattern reads specially escaped.
fn escaped(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern
}

/// The keys under `namespace` (the store's prefix and [`NAMESPACE`]) that start with
/// `prefix`, and their values, in key order, without `namespace`: at most
/// [`MAX_SCANNED`].
pub(super) async fn scan(
    connection: &mut ConnectionManager,
    namespace: &str,
    prefix: &str,
) -> Result<Vec<(String, String)>, StoreError> {
    let pattern = format!("{}*", escaped(&format!("{namespace}{prefix}")));
    // SCAN may name a key twice: a set, and sorted.
    let mut keys = BTreeSet::new();
    let mut cursor = 0u64;
    // Bounded: a cursor walk of a large keyspace stops after so many rounds.
    for _ in 0..10_000 {
        let (next, found): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(&pattern)
            .arg("COUNT")
            .arg(1000)
            .query_async(connection)
            .await
            .map_err(StoreError::new)?;
        keys.extend(found);
        cursor = next;
        if cursor == 0 || keys.len() >= MAX_SCANNED {
            break;
        }
    }
    let keys: Vec<String> = keys.into_iter().take(MAX_SCANNED).collect();
    let mut listed = Vec::with_capacity(keys.len());
    for batch in keys.chunks(500) {
        let values: Vec<Option<String>> = redis::cmd("MGET")
            .arg(batch)
            .query_async(connection)
            .await
            .map_err(StoreError::new)?;
        for (key, value) in batch.iter().zip(values) {
            // None: gone (taken, expired) since the scan named it.
            if let (Some(value), Some(key)) = (value, key.strip_prefix(namespace)) {
                listed.push((key.to_owned(), value));
            }
        }
    }
    Ok(listed)
}
