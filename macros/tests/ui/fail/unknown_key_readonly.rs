use toolsmith::tool;

/// Does one thing.
#[tool(readonly)]
fn peek() {}

fn main() {}
