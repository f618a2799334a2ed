use toolsmith::resource;

/// One note.
#[resource(uri = "notes://{}")]
fn note() -> String {
    String::new()
}

fn main() {}
