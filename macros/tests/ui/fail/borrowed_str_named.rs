use toolsmith::tool;

/// Shouts a text.
///
/// # Arguments
/// * `text` - What to shout.
#[tool(destructive = false, confirm = "Shout {text}?")]
fn shout_named(text: &str) -> String {
    text.to_uppercase()
}

fn main() {}
