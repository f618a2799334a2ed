use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn add((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
