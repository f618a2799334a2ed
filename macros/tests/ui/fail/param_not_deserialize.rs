use toolsmith::tool;

struct Query {
    text: String,
}

/// Search.
#[tool(read_only)]
fn search(query: Query) -> String {
    query.text
}

fn main() {}
