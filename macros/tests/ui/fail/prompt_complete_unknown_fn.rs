use toolsmith::prompt;

/// Summarize the notes with a tag.
///
/// # Arguments
/// * `tag` - Only the notes with this tag.
#[prompt(complete(tag = all_tags))]
fn summarize(tag: String) -> String {
    format!("Summarize my notes tagged {tag}.")
}

fn main() {}
