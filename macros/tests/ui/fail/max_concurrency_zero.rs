use toolsmith::tool;

/// Look something up.
#[tool(read_only, closed_world, max_concurrency = 0)]
fn look_up(query: String) -> String {
    query
}

fn main() {}
