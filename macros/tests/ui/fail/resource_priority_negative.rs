use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index", priority = -0.5)]
fn index() -> String {
    String::new()
}

fn main() {}
