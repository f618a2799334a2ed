use toolsmith::prompt;

/// Summarize the notes.
#[prompt]
fn summarize() -> Vec<String> {
    vec!["Summarize my notes.".to_owned()]
}

fn main() {}
