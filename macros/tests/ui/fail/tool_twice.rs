use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
#[tool(read_only)]
fn peek() {}

fn main() {}
