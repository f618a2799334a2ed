use toolsmith::tool;

/// Charges a card.
#[tool(destructive = false, scopes = "billing:admin")]
fn charge() {}

fn main() {}
