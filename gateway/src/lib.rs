#![doc = include_str!("guide.md")]

mod admit;
mod cache;
mod config;
mod error;
mod file;
mod followed;
mod heard;
mod hears;
mod identity;
mod items;
mod link;
mod listing;
mod mounted;
mod openapi;
mod overrides;
mod pin;
mod proxied;
mod relay;
mod secret;
mod session;

mod supervise;
mod tls;
mod told;
mod tools;
mod upstream;

#[doc = include_str!("users.md")]
pub mod users {}

pub use config::Config;
pub use error::Error;
pub use identity::Exchange;
pub use identity::PerCaller;
#[cfg(feature = "mint")]
pub use identity::{DEFAULT_MINT_LIFETIME, Mint};
pub use mounted::Mounted;
pub use openapi::{DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_DOCUMENT_BYTES, OpenApi};
pub use overrides::Overrides;
pub use pin::{OnChange, Pin};
pub use tls::install_crypto_provider;
pub use upstream::Upstream;
