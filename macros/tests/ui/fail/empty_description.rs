use toolsmith::tool;

/// Does one thing.
#[tool(read_only, description = "")]
fn peek() {}

fn main() {}
