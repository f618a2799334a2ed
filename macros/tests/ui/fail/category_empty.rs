use toolsmith::tool;

/// Does one thing.
#[tool(read_only, category = "")]
fn peek() {}

fn main() {}
