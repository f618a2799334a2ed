use toolsmith::tool;

/// Charges a card.
#[tool(destructive = false, scopes = [billing])]
fn charge() {}

fn main() {}
