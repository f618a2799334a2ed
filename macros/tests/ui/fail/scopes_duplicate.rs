use toolsmith::tool;

/// Charges a card.
#[tool(destructive = false, scopes = ["billing:admin", "billing:read", "billing:admin"])]
fn charge() {}

fn main() {}
