use toolsmith::prompt;

/// Summarize the notes.
#[prompt]
fn summarize() -> String {
    "Summarize my notes.".to_owned()
}

/// Summarize the notes, briefly.
#[prompt(name = "summarize")]
fn summarize_briefly() -> String {
    "Summarize my notes briefly.".to_owned()
}

fn main() {}
