use toolsmith::resource;

/// One note.
///
/// # Arguments
/// * `id` - The note's id.
#[resource(uri = "notes://{note_id}")]
fn note(id: u64) -> String {
    id.to_string()
}

fn main() {}
