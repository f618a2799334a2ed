use toolsmith::{Completion, prompt};

/// Summarize the notes with a tag.
///
/// # Arguments
/// * `tag` - Only the notes with this tag.
#[prompt(complete(tag = tags))]
fn summarize(tag: String) -> String {
    format!("Summarize my notes tagged {tag}.")
}

fn tags(_value: &str, _completion: &Completion) -> u32 {
    3
}

fn main() {}
