use toolsmith::tool;

/// A note.
#[tool(read_only)]
struct Note {
    title: String,
}

fn main() {
    let _ = Note { title: String::new() }.title;
}
