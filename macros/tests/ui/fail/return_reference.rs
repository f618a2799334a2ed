use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn name() -> &'static str {
    "x"
}

fn main() {}
