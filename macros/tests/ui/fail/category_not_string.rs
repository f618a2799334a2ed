use toolsmith::tool;

/// Does one thing.
#[tool(read_only, category = notes)]
fn peek() {}

fn main() {}
