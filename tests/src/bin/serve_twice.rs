//! Serves stdio, then tries to serve it a second time in the same process.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    toolsmith::serve_stdio().await?;
    toolsmith::serve_stdio().await?;
    Ok(())
}
