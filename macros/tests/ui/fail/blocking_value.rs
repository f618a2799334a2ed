use toolsmith::tool;

/// Reads every file once.
#[tool(read_only, blocking = true)]
fn reindex() {}

/// Reads every file twice.
#[tool(read_only, blocking, blocking)]
fn reindex_twice() {}

fn main() {}
