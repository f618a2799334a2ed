use toolsmith::{tool::Image, tool};

/// Maybe a picture.
#[tool(read_only)]
fn maybe_picture() -> Option<Image> {
    None
}

fn main() {}
