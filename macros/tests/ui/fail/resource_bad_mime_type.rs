use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index", mime_type = "json")]
fn index() -> String {
    String::new()
}

fn main() {}
