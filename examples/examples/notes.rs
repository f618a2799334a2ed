//! The tutorial's notes server: `cargo run -p toolsmith-examples --example notes` serves it
//! over stdio; `... --example notes -- tools` shows its hints, `-- --help` everything else.

use toolsmith_examples::store::Notes;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    toolsmith::Server::new().state(Notes::seeded()).run().await
}
