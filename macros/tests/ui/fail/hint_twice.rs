use toolsmith::tool;

/// Does one thing.
#[tool(read_only, read_only = false)]
fn peek() {}

fn main() {}
