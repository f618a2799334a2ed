#![deny(deprecated)]

use toolsmith::tool;

/// Does one thing.
#[tool(read_only, name = "playlist.delete")]
fn remove_from_playlist() {}

fn main() {}
