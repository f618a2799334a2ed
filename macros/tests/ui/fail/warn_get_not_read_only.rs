#![deny(deprecated)]

use toolsmith::tool;

/// Does one thing.
#[tool(closed_world)]
fn get_note(note_id: u64) -> u64 {
    note_id
}

fn main() {}
