use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index", audience = ["user", "admin"])]
fn index() -> String {
    String::new()
}

fn main() {}
