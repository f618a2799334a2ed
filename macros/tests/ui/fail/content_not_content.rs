use toolsmith::tool;

/// The program's own `Content` type, written bare: taken for toolsmith's content.
struct Content;

/// Returns a content that is not toolsmith's.
#[tool(read_only)]
fn own() -> Content {
    Content
}

fn main() {}
