use toolsmith::prompt;

#[derive(schemars::JsonSchema)]
struct Tag(String);

/// Summarize the notes with a tag.
///
/// # Arguments
/// * `tag` - Only the notes with this tag.
#[prompt]
fn summarize(tag: Tag) -> String {
    format!("Summarize my notes tagged {}.", tag.0)
}

fn main() {}
