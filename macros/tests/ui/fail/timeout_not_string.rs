use toolsmith::tool;

/// Does one thing.
#[tool(read_only, timeout = 30)]
fn peek() {}

fn main() {}
