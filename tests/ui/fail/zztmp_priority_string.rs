use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index", priority = "high")]
fn index() -> String {
    String::new()
}

fn main() {}
