use serde::Deserialize;
use toolsmith::tool;

#[derive(Deserialize)]
struct Query {
    text: String,
}

/// Search.
#[tool(read_only)]
fn search(query: Query) -> String {
    query.text
}

fn main() {}
