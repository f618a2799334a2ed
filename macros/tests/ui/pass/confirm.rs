use toolsmith::{State, tool};

struct Store;

/// Delete a note.
#[tool(destructive, closed_world, confirm = "Delete note {note_id} ({{really}})?")]
fn delete_note(store: State<Store>, note_id: u64) -> bool {
    let _ = &*store;
    note_id > 0
}

/// Empty the bin.
#[tool(destructive, closed_world, confirm)]
fn empty_bin() {}

fn main() {
    let _ = empty_bin;
}
