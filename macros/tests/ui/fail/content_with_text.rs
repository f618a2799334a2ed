use toolsmith::{tool::Image, tool};

/// A caption and a picture.
#[tool(read_only)]
fn captioned() -> Vec<(String, Image)> {
    Vec::new()
}

fn main() {}
