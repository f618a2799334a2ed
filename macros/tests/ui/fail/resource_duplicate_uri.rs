use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index")]
fn index() -> String {
    String::new()
}

/// The note index, again.
#[resource(uri = "notes://index")]
fn index_again() -> String {
    String::new()
}

fn main() {}
