use toolsmith::resource;

/// The note index.
#[resource(uri = 5)]
fn index() -> String {
    String::new()
}

fn main() {}
