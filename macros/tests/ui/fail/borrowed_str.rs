use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn shout(text: &str) -> String {
    text.to_uppercase()
}

fn main() {}
