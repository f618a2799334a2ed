use toolsmith::resource;

/// One note of a folder.
///
/// # Arguments
/// * `id` - The id.
#[resource(uri = "notes://{id}/{id}")]
fn note(id: u64) -> String {
    id.to_string()
}

fn main() {}
