use toolsmith::resource;

#[derive(schemars::JsonSchema)]
struct Id(u64);

/// One note.
///
/// # Arguments
/// * `note_id` - The note's id.
#[resource(uri = "notes://{note_id}")]
fn note(note_id: Id) -> String {
    note_id.0.to_string()
}

fn main() {}
