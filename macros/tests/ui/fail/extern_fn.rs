use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
extern "C" fn peek() {}

fn main() {}
