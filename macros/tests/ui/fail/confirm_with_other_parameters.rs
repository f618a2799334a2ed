use toolsmith::tool;

fn question(title: String) -> String {
    format!("Delete note {title}?")
}

/// Delete a note.
#[tool(destructive, closed_world, confirm_with = question)]
fn delete_note(note_id: u64) -> bool {
    note_id > 0
}

fn main() {}
