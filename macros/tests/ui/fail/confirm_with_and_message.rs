use toolsmith::tool;

fn question(note_id: u64) -> String {
    format!("Delete note {note_id}?")
}

/// Delete a note.
#[tool(destructive, closed_world, confirm = "Delete it?", confirm_with = question)]
fn delete_note(note_id: u64) -> bool {
    note_id > 0
}

fn main() {}
