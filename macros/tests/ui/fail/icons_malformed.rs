use toolsmith::tool;

/// Does one thing.
#[tool(read_only, icons = ["https://example.com/a.png", "data:text/plain,hi", "icon.png", 5])]
fn peek() {}

fn main() {}
