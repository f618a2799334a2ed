use toolsmith::tool;

/// Does one thing.
#[tool(read_only, destructive = true)]
fn tidy() {}

fn main() {}
