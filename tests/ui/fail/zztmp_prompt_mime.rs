use toolsmith::prompt;

/// Summarize the notes.
#[prompt(mime_type = "text/plain")]
fn summarize() -> String {
    "Summarize my notes.".to_owned()
}

fn main() {}
