use toolsmith::{tool::ResourceLink, resource};

/// The note index.
#[resource(uri = "notes://index")]
fn index() -> Option<ResourceLink> {
    None
}

fn main() {}
