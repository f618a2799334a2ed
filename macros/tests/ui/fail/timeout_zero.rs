use toolsmith::tool;

/// Does one thing.
#[tool(read_only, timeout = "0s")]
fn peek() {}

fn main() {}
