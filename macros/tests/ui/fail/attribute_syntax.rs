use toolsmith::tool;

/// Does one thing.
#[tool(read_only title = "Peek")]
fn peek() {}

fn main() {}
