use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn name() -> impl std::fmt::Display {
    "x"
}

fn main() {}
