use toolsmith::{complete::Completion, prompt};

/// Summarize the notes with a tag.
///
/// # Arguments
/// * `tag` - Only the notes with this tag.
#[prompt(complete(tags = tags))]
fn summarize(tag: String) -> String {
    format!("Summarize my notes tagged {tag}.")
}

fn tags(value: &str, _completion: &Completion) -> Vec<String> {
    vec![value.to_owned()]
}

fn main() {}
