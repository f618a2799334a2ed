use toolsmith::tool;

const YES: bool = true;

/// Look.
#[tool(read_only = YES)]
fn look() {}

fn main() {}
