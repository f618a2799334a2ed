use toolsmith::resource;

/// The note index.
#[resource(uri = "notes://index")]
struct Index;

fn main() {}
