use toolsmith::tool;

/// Does one thing.
#[tool(read_only, title = "  ")]
fn peek() {}

fn main() {}
