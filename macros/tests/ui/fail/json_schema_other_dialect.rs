use toolsmith::tool;

/// Look something up.
#[tool(read_only, closed_world, json_schema = "2019-09")]
fn look_up(query: String) -> String {
    query
}

fn main() {}
