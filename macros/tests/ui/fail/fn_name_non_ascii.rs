use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn café() {}

fn main() {}
