use toolsmith::resource;

/// The note index.
#[resource(mime_type = "application/json")]
fn index() -> String {
    String::new()
}

fn main() {}
