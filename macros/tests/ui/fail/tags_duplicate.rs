use toolsmith::tool;

/// Does one thing.
#[tool(read_only, tags = ["search", "read", "search"])]
fn peek() {}

fn main() {}
