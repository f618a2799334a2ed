#![doc = include_str!("guide.md")]

mod config;
mod error;
mod hears;
mod link;
mod overrides;
mod pin;
mod proxied;
mod upstream;

pub use config::Config;
pub use error::Error;
pub use overrides::Overrides;
pub use pin::{OnChange, Pin};
pub use upstream::{Mounted, Upstream};
