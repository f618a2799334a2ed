use toolsmith::tool;

/// Delete a note.
#[tool(destructive, closed_world, confirm_with = "Delete it?")]
fn delete_note(note_id: u64) -> bool {
    note_id > 0
}

fn main() {}
