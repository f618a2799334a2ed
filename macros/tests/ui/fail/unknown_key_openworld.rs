use toolsmith::tool;

/// Does one thing.
#[tool(read_only, openworld)]
fn peek() {}

fn main() {}
