//! The TM Dev Lab v2 benchmark's API service (see `toolsmith_bench::tmdevlab::catalog`):
//! `GET /products/search`, `GET /products/{id}`, `POST /cart/calculate`, `GET /health`, on
//! the address given as the one argument (default 127.0.0.1:8100).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use toolsmith_bench::tmdevlab::catalog::{CartRequest, Catalog};

type Shared = State<Arc<Catalog>>;

async fn search(State(catalog): Shared, Query(query): Query<HashMap<String, String>>) -> Response {
    let number = |key: &str| query.get(key).and_then(|v| v.parse::<f64>().ok());
    let category = query
        .get("category")
        .filter(|c| !c.is_empty())
        .map_or("Electronics", String::as_str);
    let min = number("min_price").unwrap_or(0.0);
    let max = number("max_price")
        .filter(|m| *m != 0.0)
        .unwrap_or(f64::MAX);
    let limit = query
        .get("limit")
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|l| (1..=1000).contains(l))
        .unwrap_or(10);
    Json(catalog.search(category, min, max, limit)).into_response()
}

async fn product(State(catalog): Shared, Path(id): Path<String>) -> Response {
    match id.parse().ok().and_then(|id| catalog.product(id)) {
        Some(product) => Json(product).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn calculate(State(catalog): Shared, Json(cart): Json<CartRequest>) -> Response {
    Json(catalog.price(&cart)).into_response()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8100".into());
    let catalog = Arc::new(Catalog::new());
    let app = Router::new()
        .route(
            "/health",
            get(|| async {
                Json(serde_json::json!({"status": "ok", "server_type": "api-service"}))
            }),
        )
        .route("/products/search", get(search))
        .route("/products/{id}", get(product))
        .route("/cart/calculate", post(calculate))
        .with_state(catalog);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("api-service listening on {}", listener.local_addr()?);
    axum::serve(listener, app).await
}
