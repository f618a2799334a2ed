use toolsmith::tool;

/// Does one thing.
#[tool(read_only, icon = "http://example.com/icon.png")]
fn peek() {}

fn main() {}
