//! The remembered approvals a Redis store keeps (`PREFIXgrant:ID`, the description as the
//! value, expiring with the grant), listed.

use redis::aio::ConnectionManager;

use super::StoreError;

/// The most remembered approvals listed.
const MAX_LISTED: usize = 10_000;

/// Every remembered approval under `prefix`: its id, its description, the milliseconds it
/// has left.
pub(super) async fn listed(
    connection: &mut ConnectionManager,
    prefix: &str,
) -> Result<Vec<(String, String, u64)>, StoreError> {
    let pattern = format!("{}grant:*", prefix);
    let mut keys: Vec<String> = Vec::new();
    let mut cursor = 0u64;
    // Bounded: at most so many grants are listed.
    for _ in 0..1000 {
        let (next, found): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(&pattern)
            .arg("COUNT")
            .arg(500)
            .query_async(connection)
            .await
            .map_err(StoreError::new)?;
        keys.extend(found);
        cursor = next;
        if cursor == 0 || keys.len() >= MAX_LISTED {
            break;
        }
    }
    keys.truncate(MAX_LISTED);
    let mut listed = Vec::with_capacity(keys.len());
    for key in keys {
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(&key).cmd("PTTL").arg(&key);
        let (description, left): (Option<String>, i64) = pipe
            .query_async(connection)
            .await
            .map_err(StoreError::new)?;
        let (Some(description), Ok(left)) = (description, u64::try_from(left)) else {
            continue; // gone meanwhile, or kept without an expiry
        };
        let key = key[pattern.len() - 1..].to_owned();
        listed.push((key, description, left));
    }
    Ok(listed)
}
