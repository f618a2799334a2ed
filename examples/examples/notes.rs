//! The tutorial's notes server over stdio: `cargo run -p toolsmith-examples --example notes`.

// Linking the library registers its tools.
use toolsmith_examples as _;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    toolsmith::serve_stdio().await?;
    Ok(())
}
