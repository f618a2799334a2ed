use toolsmith::tool;

/// Delete a note.
#[tool(destructive, closed_world, confirm = true)]
fn delete_note(note_id: u64) -> bool {
    note_id > 0
}

fn main() {}
