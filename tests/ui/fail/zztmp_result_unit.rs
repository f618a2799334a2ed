use toolsmith::{ToolError, resource};

/// The note index.
#[resource(uri = "notes://index")]
fn index() -> Result<(), ToolError> {
    Ok(())
}

fn main() {}
