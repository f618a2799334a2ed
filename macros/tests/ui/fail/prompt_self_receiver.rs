use toolsmith::prompt;

struct Notes;

impl Notes {
    /// Summarize the notes.
    #[prompt]
    fn summarize(&self) -> String {
        "Summarize my notes.".to_owned()
    }
}

fn main() {}
