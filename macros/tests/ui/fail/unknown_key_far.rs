use toolsmith::tool;

/// Does one thing.
#[tool(read_only, colour = "blue")]
fn peek() {}

fn main() {}
