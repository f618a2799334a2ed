use toolsmith::resource;

struct Index {
    count: u32,
}

/// The note index.
#[resource(uri = "notes://index")]
fn index() -> Index {
    Index { count: 0 }
}

fn main() {}
