use toolsmith::resource;

/// One note.
///
/// # Arguments
/// * `note_id` - The note's id.
/// * `verbose` - Whether to say more.
#[resource(uri = "notes://{note_id}")]
fn note(note_id: u64, verbose: bool) -> String {
    format!("{note_id} {verbose}")
}

fn main() {}
