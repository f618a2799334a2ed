use toolsmith::tool;

/// Does one thing.
#[tool(readonly, title = 5)]
fn shout(text: &str) -> String {
    text.to_uppercase()
}

fn main() {}
