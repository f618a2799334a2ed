use toolsmith::{tool::ResourceLink, resource};

/// The note index.
#[resource(uri = "notes://index")]
fn index() -> ResourceLink {
    ResourceLink::new("notes://all", "all")
}

fn main() {}
