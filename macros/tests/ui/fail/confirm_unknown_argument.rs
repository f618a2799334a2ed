use toolsmith::tool;

/// Delete a note.
#[tool(destructive, closed_world, confirm = "Delete note {id}?")]
fn delete_note(note_id: u64) -> bool {
    note_id > 0
}

fn main() {}
