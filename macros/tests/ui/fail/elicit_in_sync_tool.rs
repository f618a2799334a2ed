use toolsmith::{context::Elicit, tool};

/// Asks, but cannot await the answer.
#[tool(read_only, closed_world)]
fn ask_in_sync(elicit: Elicit) -> String {
    let _ = elicit;
    String::new()
}

fn main() {}
