use toolsmith::tool;

/// Does one thing.
#[tool(read_only, idempotent = false)]
fn peek() {}

fn main() {}
