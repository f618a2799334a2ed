use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index")]
fn index() -> &'static str {
    ""
}

fn main() {}
