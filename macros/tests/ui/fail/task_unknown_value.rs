use toolsmith::tool;

/// Import the notes.
#[tool(task = "always", destructive = false, closed_world)]
async fn import_all() -> String {
    String::new()
}

/// Import them twice over.
#[tool(task, task = "required", destructive = false, closed_world)]
async fn import_twice() -> String {
    String::new()
}

/// Import with a flag.
#[tool(task = true, destructive = false, closed_world)]
async fn import_flag() -> String {
    String::new()
}

fn main() {}
