use toolsmith::tool;

/// Does one thing.
#[tool(read_only)]
fn echo<T>(value: T) -> String {
    let _ = value;
    String::new()
}

fn main() {}
