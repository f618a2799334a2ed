use toolsmith::tool;

/// Not toolsmith's `Progress`.
pub struct Progress;

/// Does one thing.
#[tool(read_only)]
fn peek(progress: Progress) {
    let _ = progress;
}

fn main() {}
