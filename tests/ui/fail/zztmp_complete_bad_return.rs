use toolsmith::{Completion, prompt};

/// Summarize the notes with a tag.
///
/// # Arguments
/// * `tag` - Only the notes with this tag.
#[prompt(complete(tag = tags))]
async fn summarize(tag: String) -> String {
    format!("Summarize my notes tagged {tag}.")
}

async fn tags(_value: &str, _completion: &Completion) -> Vec<&'static str> {
    vec!["a"]
}

fn main() {}
