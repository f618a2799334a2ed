#![deny(deprecated)]

use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn delete_note(note_id: u64) -> bool {
    note_id > 0
}

fn main() {}
