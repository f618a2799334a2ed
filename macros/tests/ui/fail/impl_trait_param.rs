use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn show(value: impl std::fmt::Display) -> String {
    value.to_string()
}

fn main() {}
