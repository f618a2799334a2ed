//! TM Dev Lab v2's Redis data (the seeding script in its repository's `infra` folder, rewritten
//! here), written before each server's run as the benchmark does: 10,000 carts
//! (`bench:cart:user-NNNNN`, hashes), 1,000 order histories of 20 entries
//! (`bench:history:user-NNNNN`, lists), the popularity set of
//! 100,000 products (`bench:popular`) and 100 rate-limit counters.

use redis::aio::MultiplexedConnection;
use serde_json::json;

/// Empties the database and writes the benchmark's data.
pub async fn seed(redis: &mut MultiplexedConnection) -> redis::RedisResult<()> {
    redis::cmd("FLUSHALL").query_async::<()>(redis).await?;
    let mut pipe = redis::pipe();
    for n in 1..=10_000u64 {
        let mut items = vec![
            json!({"product_id": (n * 7) % 100_000 + 1, "qty": 1 + n % 3}),
            json!({"product_id": (n * 13) % 100_000 + 1, "qty": 1 + n % 2}),
        ];
        if n % 3 == 0 {
            items.push(json!({"product_id": (n * 17) % 100_000 + 1, "qty": 1}));
        }
        let total: f64 = items
            .iter()
            .map(|it| {
                let (id, qty) = (
                    it["product_id"].as_u64().unwrap_or(0),
                    it["qty"].as_u64().unwrap_or(0),
                );
                qty as f64 * (((id * 100) % 9_999) + 1) as f64 / 100.0
            })
            .sum();
        pipe.hset_multiple(
            format!("bench:cart:user-{n:05}"),
            &[
                ("user_id", format!("user-{n:05}")),
                ("items", serde_json::Value::from(items).to_string()),
                ("created", "1740000000".into()),
                ("expires", "1740086400".into()),
                ("total", format!("{total:.2}")),
            ],
        )
        .ignore();
        if n % 1_000 == 0 {
            pipe.query_async::<()>(redis).await?;
            pipe = redis::pipe();
        }
    }
    for n in 1..=1_000u64 {
        let key = format!("bench:history:user-{n:05}");
        let entries: Vec<String> = (1..=20u64)
            .map(|j| {
                json!({
                    "order_id": format!("ORD-{n:05}-{j:02}"),
                    "product_id": (n * j * 7) % 100_000 + 1,
                    "qty": 1 + j % 3,
                    "price": (((n * j * 13) % 9_999 + 1) as f64 / 100.0 * 100.0).round() / 100.0,
                    "ts": 1_740_000_000 + n * 86_400 + j * 3_600,
                })
                .to_string()
            })
            .collect();
        pipe.rpush(key, entries).ignore();
        if n % 100 == 0 {
            pipe.query_async::<()>(redis).await?;
            pipe = redis::pipe();
        }
    }
    for i in 1..=100_000u64 {
        pipe.zadd("bench:popular", format!("product:{i}"), i * 7 % 10_000)
            .ignore();
        if i % 5_000 == 0 {
            pipe.query_async::<()>(redis).await?;
            pipe = redis::pipe();
        }
    }
    for n in 1..=100u64 {
        pipe.set(format!("bench:ratelimit:user-{n:05}"), 0).ignore();
    }
    pipe.query_async::<()>(redis).await
}
