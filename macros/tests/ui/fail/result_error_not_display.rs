use toolsmith::tool;

#[derive(Debug)]
struct Oops;

/// Might fail.
#[tool(read_only)]
fn risky() -> Result<String, Oops> {
    Err(Oops)
}

fn main() {}
