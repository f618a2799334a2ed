use toolsmith::resource;

/// One note.
///
/// # Arguments
/// * `note_id` - The note's id.
#[resource(uri = "notes://{note_id}", complete(note_id))]
fn note(note_id: u64) -> String {
    note_id.to_string()
}

fn main() {}
