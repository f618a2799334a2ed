use toolsmith::resource;

/// The note index.
#[resource(uri = "index")]
fn index() -> String {
    String::new()
}

fn main() {}
