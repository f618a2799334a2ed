use toolsmith::tool;

#[tool(read_only)]
fn peek() {}

fn main() {}
