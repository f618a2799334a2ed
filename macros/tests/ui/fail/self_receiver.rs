use toolsmith::tool;

struct Notes;

impl Notes {
    /// Count notes.
    #[tool(read_only)]
    fn count(&self) -> u32 {
        0
    }
}

fn main() {
    let _ = Notes.count();
}
