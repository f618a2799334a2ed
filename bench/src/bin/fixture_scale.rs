//! A server of N tools made at run time (`toolsmith_bench::scale::tools`), over stateless
//! Streamable HTTP: `fixture-scale ADDR TOOLS [CHURN_MS]`. With `CHURN_MS`, a tool is added
//! and then removed again every `CHURN_MS` milliseconds while it serves (the set a gateway
//! or an OpenAPI document changes under calls in flight).

use std::time::Duration;

use toolsmith::Server;
use toolsmith_bench::scale::tools::{Generated, registry};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8097".into());
    let tools: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let churn: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    let server = Server::with_registry(registry(tools));
    if churn > 0 {
        let handle = server.registry_handle();
        tokio::spawn(async move {
            let every = Duration::from_millis(churn);
            loop {
                tokio::time::sleep(every).await;
                let _ = handle.add_tool(Generated::new(tools));
                tokio::time::sleep(every).await;
                handle.remove_tool(&format!("tool_{tools}"));
            }
        });
    }
    // Stateless, as the scaling runs call it (no session opened first).
    server.sessions(false).serve_http(addr).await?;
    Ok(())
}
