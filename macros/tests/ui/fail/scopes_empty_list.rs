use toolsmith::tool;

/// Charges a card.
#[tool(destructive = false, scopes = [])]
fn charge() {}

fn main() {}
