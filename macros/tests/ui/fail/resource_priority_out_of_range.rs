use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index", priority = 1.5)]
fn index() -> String {
    String::new()
}

fn main() {}
