use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index", uri = "notes://all")]
fn index() -> String {
    String::new()
}

fn main() {}
