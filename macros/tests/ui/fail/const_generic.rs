use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn zeros<const N: usize>() -> Vec<u8> {
    vec![0; N]
}

fn main() {}
