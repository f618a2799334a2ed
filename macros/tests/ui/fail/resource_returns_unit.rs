use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index")]
fn index() -> () {}

fn main() {}
