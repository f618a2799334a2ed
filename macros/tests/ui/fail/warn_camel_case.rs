#![deny(deprecated)]

use toolsmith::tool;

/// Does one thing.
#[tool(name = "fetchWeather")]
fn weather() {}

fn main() {}
