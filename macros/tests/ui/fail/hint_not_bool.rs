use toolsmith::tool;

/// Does one thing.
#[tool(read_only = "yes")]
fn peek() {}

fn main() {}
