use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index", audience = [])]
fn index() -> String {
    String::new()
}

fn main() {}
