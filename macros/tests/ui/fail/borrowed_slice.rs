use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn total(values: &[i64]) -> i64 {
    values.iter().sum()
}

fn main() {}
