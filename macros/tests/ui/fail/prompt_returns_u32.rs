use toolsmith::prompt;

/// Count the notes.
#[prompt]
fn count() -> u32 {
    3
}

fn main() {}
