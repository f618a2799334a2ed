//! A server whose tool needs state that `main` never registers, and whose `main` returns the
//! startup error through `?`: what a person sees is the error's `Debug` form.

use toolsmith::{State, tool};

/// State nobody registers.
struct Unregistered;

/// Needs state that was never registered.
#[tool(read_only, closed_world)]
fn needy(state: State<Unregistered>) -> bool {
    let _ = &*state;
    true
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    toolsmith::serve_stdio().await?;
    Ok(())
}
