use toolsmith::tool;

/// Does one thing.
#[tool(read_only, destructive)]
fn wipe_cache() {}

fn main() {}
