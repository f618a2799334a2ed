use toolsmith::tool;

/// Does one thing.
#[tool(read_only, closed_world = true)]
fn peek() {}

fn main() {}
