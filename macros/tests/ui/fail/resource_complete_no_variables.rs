use toolsmith::{complete::Completion, resource};

/// The index.
#[resource(uri = "notes://index", complete(note_id = ids))]
fn index() -> String {
    String::new()
}

fn ids(value: &str, _completion: &Completion) -> Vec<String> {
    vec![value.to_owned()]
}

fn main() {}
