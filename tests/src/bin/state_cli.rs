//! A server through `toolsmith::run()` whose `search_db` tool needs `State<Database>` that
//! `main` never registers (as in CI, where no database runs), and whose `echo` tool needs
//! nothing: `tools`, `schema`, `check` and `call echo` work without the state; `serve` and
//! `call search_db` say which state is missing.

use toolsmith::{State, tool};

/// A connection nobody opens here.
pub struct Database;

/// Search the database.
#[tool(read_only, closed_world)]
fn search_db(db: State<Database>, query: String) -> Vec<String> {
    let _ = &*db;
    vec![query]
}

/// Echo the text back.
#[tool(read_only, idempotent, closed_world)]
fn echo(text: String) -> String {
    text
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    toolsmith::run().await
}
