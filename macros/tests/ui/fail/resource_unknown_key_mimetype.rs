use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index", mimetype = "application/json")]
fn index() -> String {
    String::new()
}

fn main() {}
