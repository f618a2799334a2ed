use toolsmith::tool;

/// Search.
///
/// # Arguments
/// * `query` - What to look for.
/// * `limit` - At most this many.
#[tool(read_only)]
fn search(query: String) -> Vec<String> {
    vec![query]
}

fn main() {}
