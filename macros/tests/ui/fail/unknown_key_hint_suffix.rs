use toolsmith::tool;

/// Does one thing.
#[tool(read_only_hint)]
fn peek() {}

fn main() {}
