use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index", mime_type = "text/plain", mime_type = "text/markdown")]
fn index() -> String {
    String::new()
}

fn main() {}
