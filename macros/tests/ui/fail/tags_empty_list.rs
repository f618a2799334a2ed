use toolsmith::tool;

/// Does one thing.
#[tool(read_only, tags = [])]
fn peek() {}

fn main() {}
