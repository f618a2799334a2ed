//! Sessions by transport: what a session keeps (its lifecycle and its requests in flight,
//! `lifecycle.rs`), the stdio session with its fast path (`stdio/`), and the HTTP side
//! (`http/`: its fast path, and a call's notifications on rmcp's path).

#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod lifecycle;
pub(crate) mod stdio;
