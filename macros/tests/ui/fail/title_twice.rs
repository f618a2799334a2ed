use toolsmith::tool;

/// Does one thing.
#[tool(read_only, title = "One", title = "Two")]
fn peek() {}

fn main() {}
