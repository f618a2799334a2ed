use toolsmith::tool;

/// Does one thing.
#[tool(read_only, name = "search notes")]
fn search() {}

fn main() {}
