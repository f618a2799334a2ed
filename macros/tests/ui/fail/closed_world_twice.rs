use toolsmith::tool;

/// Does one thing.
#[tool(read_only, closed_world, open_world = false)]
fn peek() {}

fn main() {}
