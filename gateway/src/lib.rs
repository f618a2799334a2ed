#![doc = include_str!("guide.md")]

mod acting;
mod admit;
mod apps;
mod cache;
mod choice;
mod config;
mod error;
mod file;
mod followed;
mod identity;
mod link;
mod listing;
mod meter;
mod mounted;
mod openapi;
mod overrides;
mod pin;
mod pool;
mod proxied;
mod relay;
mod relaying_transport;
mod reshape;
mod resource_prompt_proxies;
mod secret;
mod session;
#[cfg(feature = "upstream-signin")]
mod signed_in;
mod upstream_handler;

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
#[cfg(feature = "upstream-signin")]
pub use identity::signin::{DEFAULT_SIGN_IN_WAIT, UpstreamSignIn};
#[cfg(feature = "mint")]
pub use identity::{DEFAULT_MINT_LIFETIME, Mint};
pub use mounted::Mounted;
pub use openapi::{DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_DOCUMENT_BYTES, OpenApi};
pub use overrides::Overrides;
pub use pin::{OnChange, Pin};
#[cfg(feature = "upstream-signin")]
pub use signed_in::sign_in_routes;
pub use tls::install_crypto_provider;
pub use upstream::Upstream;
