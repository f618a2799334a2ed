//! The tutorial's notes server: `cargo run -p toolsmith-examples --example notes` serves it
//! over stdio; `... --example notes -- tools` shows its hints, `-- --help` everything else.

// Linking the library registers its tools.
use toolsmith_examples as _;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    toolsmith::run().await?;
    Ok(())
}
