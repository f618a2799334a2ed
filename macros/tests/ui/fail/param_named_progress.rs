use toolsmith::tool;

/// Not toolsmith's `Progress`: a type of the program's own, so an argument, which must
/// decode from JSON and have a schema.
pub struct Progress;

/// Does one thing.
#[tool(read_only)]
fn peek(progress: Progress) {
    let _ = progress;
}

fn main() {}
