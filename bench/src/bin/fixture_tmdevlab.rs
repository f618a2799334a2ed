//! TM Dev Lab v2's three tools written with toolsmith: the same Redis commands and API
//! requests as the benchmark's servers, in parallel where theirs are, and the same answers
//! (a JSON text). Served over stateless Streamable HTTP on the address given as the first
//! argument (`--sessions` after it: with sessions); `REDIS_URL` and `API_SERVICE_URL` say
//! where the rest is.
//!
//! One multiplexed Redis connection (`redis::aio::ConnectionManager`) carries every command,
//! pipelined; one `reqwest::Client` keeps its connections to the API service alive.

use std::collections::HashMap;

use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};
use toolsmith::{Server, State, ToolError, tool};

/// Where the tools' data lives.
struct Backends {
    redis: ConnectionManager,
    http: reqwest::Client,
    api: String,
}

fn failed(err: impl std::fmt::Display) -> ToolError {
    ToolError::new(err.to_string())
}

/// The API service's search answer, as far as the tool reads it.
#[derive(Deserialize)]
struct Found {
    total_found: u64,
    products: Vec<FoundProduct>,
}

#[derive(Deserialize)]
struct FoundProduct {
    id: u64,
    sku: String,
    name: String,
    price: f64,
    rating: f64,
}

#[derive(Serialize)]
struct Ranked<'a> {
    id: u64,
    sku: &'a str,
    name: &'a str,
    price: f64,
    rating: f64,
    popularity_rank: usize,
}

#[derive(Serialize)]
struct SearchAnswer<'a> {
    category: &'a str,
    total_found: u64,
    products: Vec<Ranked<'a>>,
    top10_popular_ids: Vec<u64>,
    server_type: &'static str,
}

/// Search products by category and price range, merged with popularity data.
///
/// # Arguments
/// * `category` - The category (default Electronics).
/// * `min_price` - The lowest price (default 50).
/// * `max_price` - The highest price (default 500).
/// * `limit` - How many products at most (default 10).
#[tool(read_only, open_world)]
async fn search_products(
    backends: State<Backends>,
    category: Option<String>,
    min_price: Option<f64>,
    max_price: Option<f64>,
    limit: Option<u32>,
) -> Result<String, ToolError> {
    let category = category.unwrap_or_else(|| "Electronics".into());
    let url = format!(
        "{}/products/search?category={}&min_price={}&max_price={}&limit={}",
        backends.api,
        category,
        min_price.unwrap_or(50.0),
        max_price.unwrap_or(500.0),
        limit.unwrap_or(10)
    );
    let mut redis = backends.redis.clone();
    let mut top = redis::cmd("ZREVRANGE");
    top.arg("bench:popular").arg(0).arg(9);
    let popular = top.query_async::<Vec<String>>(&mut redis);
    let search = async {
        let response = backends.http.get(url).send().await.map_err(failed)?;
        let body = response.bytes().await.map_err(failed)?;
        serde_json::from_slice::<Found>(&body).map_err(failed)
    };
    let (popular, found) = tokio::join!(popular, search);
    let found = found?;
    let top10: Vec<u64> = popular
        .unwrap_or_default()
        .iter()
        .filter_map(|m| m.strip_prefix("product:")?.parse().ok())
        .collect();
    let rank = |id| top10.iter().position(|&p| p == id).map_or(0, |at| at + 1);
    let answer = SearchAnswer {
        category: &category,
        total_found: found.total_found,
        products: found
            .products
            .iter()
            .map(|p| Ranked {
                id: p.id,
                sku: &p.sku,
                name: &p.name,
                price: p.price,
                rating: p.rating,
                popularity_rank: rank(p.id),
            })
            .collect(),
        top10_popular_ids: top10.clone(),
        server_type: "toolsmith",
    };
    serde_json::to_string(&answer).map_err(failed)
}

#[derive(Serialize)]
struct Cart {
    items: serde_json::Value,
    item_count: usize,
    estimated_total: f64,
}

#[derive(Serialize)]
struct CartAnswer<'a> {
    user_id: &'a str,
    cart: Cart,
    recent_history: Vec<serde_json::Value>,
    server_type: &'static str,
}

/// Get user cart details with recent order history.
///
/// # Arguments
/// * `user_id` - The user (default user-00042).
#[tool(read_only, open_world)]
async fn get_user_cart(
    backends: State<Backends>,
    user_id: Option<String>,
) -> Result<String, ToolError> {
    let user_id = user_id.unwrap_or_else(|| "user-00042".into());
    let mut redis = backends.redis.clone();
    let cart: HashMap<String, String> = redis::cmd("HGETALL")
        .arg(format!("bench:cart:{user_id}"))
        .query_async(&mut redis)
        .await
        .map_err(failed)?;
    let items: serde_json::Value = cart
        .get("items")
        .and_then(|items| serde_json::from_str(items).ok())
        .unwrap_or_else(|| serde_json::json!([]));
    let first = items[0]["product_id"].as_u64().unwrap_or(1);
    let estimated_total = cart
        .get("total")
        .and_then(|t| t.parse().ok())
        .unwrap_or(0.0);
    let mut recent = redis::cmd("LRANGE");
    recent.arg(format!("bench:history:{user_id}")).arg(0).arg(4);
    let history = recent.query_async::<Vec<String>>(&mut redis);
    let product = backends
        .http
        .get(format!("{}/products/{first}", backends.api))
        .send();
    let (history, product) = tokio::join!(history, product);
    // Fetched for its cost, as the benchmark's servers do; the answer does not carry it.
    if let Ok(product) = product {
        let _ = product.bytes().await;
    }
    let recent_history = history
        .unwrap_or_default()
        .iter()
        .map(|e| serde_json::from_str(e).unwrap_or_else(|_| serde_json::json!({"raw": e})))
        .collect();
    let item_count = items.as_array().map_or(0, Vec::len);
    let answer = CartAnswer {
        user_id: &user_id,
        cart: Cart {
            items,
            item_count,
            estimated_total,
        },
        recent_history,
        server_type: "toolsmith",
    };
    serde_json::to_string(&answer).map_err(failed)
}

/// One product of an order.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
struct Item {
    /// The product's id.
    product_id: u32,
    /// How many.
    quantity: u32,
}

#[derive(Serialize)]
struct Order<'a> {
    order_id: String,
    items: &'a [Item],
    ts: u64,
}

#[derive(Serialize)]
struct Calculate<'a> {
    user_id: &'a str,
    items: &'a [Item],
}

#[derive(Deserialize)]
struct Priced {
    total: Option<f64>,
    order_id: Option<String>,
}

#[derive(Serialize)]
struct CheckoutAnswer<'a> {
    order_id: &'a str,
    user_id: &'a str,
    total: f64,
    items_count: usize,
    rate_limit_count: i64,
    status: &'static str,
    server_type: &'static str,
}

/// Process checkout: calculate total, update rate limit, record history.
///
/// # Arguments
/// * `user_id` - The user (default user-00042).
/// * `items` - The products ordered (default two).
#[tool(destructive = false, open_world)]
async fn checkout(
    backends: State<Backends>,
    user_id: Option<String>,
    items: Option<Vec<Item>>,
) -> Result<String, ToolError> {
    let user_id = user_id.unwrap_or_else(|| "user-00042".into());
    let items = items.unwrap_or_else(|| {
        vec![
            Item {
                product_id: 42,
                quantity: 2,
            },
            Item {
                product_id: 1337,
                quantity: 1,
            },
        ]
    });
    let user_number: u64 = user_id
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(42);
    let ts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let order = Order {
        order_id: format!("ORD-{user_id}-{ts}"),
        items: &items,
        ts,
    };
    let order = serde_json::to_string(&order).map_err(failed)?;
    let product = items.first().map_or(42, |item| item.product_id);
    let mut redis = backends.redis.clone();
    let mut pipe = redis::pipe();
    pipe.cmd("INCR")
        .arg(format!("bench:ratelimit:user-{:05}", user_number % 100))
        .cmd("RPUSH")
        .arg(format!("bench:history:{user_id}"))
        .arg(order)
        .ignore()
        .cmd("ZADD")
        .arg("bench:popular")
        .arg("INCR")
        .arg(1)
        .arg(format!("product:{product}"))
        .ignore();
    let recorded = pipe.query_async::<(i64,)>(&mut redis);
    let body = serde_json::to_vec(&Calculate {
        user_id: &user_id,
        items: &items,
    })
    .map_err(failed)?;
    let priced = async {
        let response = backends
            .http
            .post(format!("{}/cart/calculate", backends.api))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .map_err(failed)?;
        let body = response.bytes().await.map_err(failed)?;
        serde_json::from_slice::<Priced>(&body).map_err(failed)
    };
    let (recorded, priced) = tokio::join!(recorded, priced);
    let priced = priced?;
    let answer = CheckoutAnswer {
        order_id: priced.order_id.as_deref().unwrap_or("ORD-unknown"),
        user_id: &user_id,
        total: priced.total.unwrap_or(0.0),
        items_count: items.len(),
        rate_limit_count: recorded.map_or(0, |(count,)| count),
        status: "confirmed",
        server_type: "toolsmith",
    };
    serde_json::to_string(&answer).map_err(failed)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8096".into());
    let sessions = args.next().as_deref() == Some("--sessions");
    let env = |name, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
    let redis_url = env("REDIS_URL", "redis://127.0.0.1:6379");
    // Plain HTTP to the API service; the client still wants a TLS provider installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let backends = Backends {
        redis: ConnectionManager::new(redis::Client::open(redis_url)?).await?,
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(50)
            .tcp_nodelay(true)
            .build()?,
        api: env("API_SERVICE_URL", "http://127.0.0.1:8100"),
    };
    Server::new()
        .state(backends)
        .sessions(sessions)
        .serve_http(addr)
        .await?;
    Ok(())
}
