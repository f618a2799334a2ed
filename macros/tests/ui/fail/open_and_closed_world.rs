use toolsmith::tool;

/// Does one thing.
#[tool(read_only, open_world, closed_world)]
fn lookup() {}

fn main() {}
