use toolsmith::prompt;

/// Summarize the notes.
#[prompt(name = "summarize notes")]
fn summarize() -> String {
    "Summarize my notes.".to_owned()
}

fn main() {}
