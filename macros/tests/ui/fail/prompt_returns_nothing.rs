use toolsmith::prompt;

/// Count the notes.
#[prompt]
fn count() {}

fn main() {}
