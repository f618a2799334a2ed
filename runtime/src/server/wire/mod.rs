//! The wire codec of the fast paths, for every transport: reading a request that a fast
//! path answers (`decode.rs`, with the allow-list of what it answers and the revision it is
//! in; `stateless.rs`, the handshake, ping and notifications a stateless HTTP server
//! answers without state) and writing an answer in exactly the shape rmcp's service gives it (`encode.rs`).
//! Knows no session and no pipeline: a session reads with it, runs the call through the
//! pipeline, and writes with it.

pub(crate) mod decode;
pub(crate) mod encode;
#[cfg(feature = "http")]
pub(crate) mod stateless;
