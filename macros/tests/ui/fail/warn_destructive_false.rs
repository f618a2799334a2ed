#![deny(deprecated)]

use toolsmith::tool;

/// Does one thing.
#[tool(destructive = false, name = "information_wipe")]
fn wipe() {}

fn main() {}
