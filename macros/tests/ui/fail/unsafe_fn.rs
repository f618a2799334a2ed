use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
unsafe fn peek() {}

fn main() {}
