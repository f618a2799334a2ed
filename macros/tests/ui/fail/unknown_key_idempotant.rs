use toolsmith::tool;

/// Does one thing.
#[tool(read_only, idempotant)]
fn peek() {}

fn main() {}
