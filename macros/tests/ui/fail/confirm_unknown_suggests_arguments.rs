use toolsmith::{State, tool};

struct Store;

/// Delete a note.
#[tool(destructive, closed_world, confirm = "Delete note {id}?")]
fn delete_note(store: State<Store>, note_id: u64) -> bool {
    let _ = &*store;
    note_id > 0
}

fn main() {}
