use toolsmith::tool;

/// Does one thing.
#[tool(destructive_hint = false)]
fn save() {}

fn main() {}
