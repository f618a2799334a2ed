use toolsmith::tool;

/// Does one thing.
#[tool(read_only, tags = ["search", 3])]
fn peek() {}

fn main() {}
