use toolsmith::{complete::Completion, resource};

/// One note.
///
/// # Arguments
/// * `note_id` - The note's id.
#[resource(uri = "notes://{note_id}", complete(note_id = ids, note_id = ids))]
fn note(note_id: u64) -> String {
    note_id.to_string()
}

fn ids(value: &str, _completion: &Completion) -> Vec<String> {
    vec![value.to_owned()]
}

fn main() {}
