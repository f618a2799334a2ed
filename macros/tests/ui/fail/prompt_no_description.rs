use toolsmith::prompt;

#[prompt]
fn summarize() -> String {
    "Summarize my notes.".to_owned()
}

fn main() {}
