use toolsmith::tool;

/// Does one thing.
#[tool(read_only, tags = ["search", " "])]
fn peek() {}

fn main() {}
