use toolsmith::tool;

/// Does one thing.
#[tool(read_only, name = "")]
fn search() {}

fn main() {}
