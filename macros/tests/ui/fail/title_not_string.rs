use toolsmith::tool;

/// Does one thing.
#[tool(read_only, title = 5)]
fn peek() {}

fn main() {}
