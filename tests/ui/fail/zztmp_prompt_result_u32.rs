use toolsmith::{ToolError, prompt};

/// Count the notes.
#[prompt]
fn count() -> Result<u32, ToolError> {
    Ok(3)
}

fn main() {}
