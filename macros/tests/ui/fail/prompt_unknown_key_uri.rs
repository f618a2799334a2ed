use toolsmith::prompt;

/// Summarize the notes.
#[prompt(uri = "notes://summary")]
fn summarize() -> String {
    "Summarize my notes.".to_owned()
}

fn main() {}
