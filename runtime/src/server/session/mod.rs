//! Sessions by transport, their framing only: what a session keeps (its lifecycle and its
//! requests in flight, `lifecycle.rs`), the stdio session (`stdio/`), and the HTTP fast path
//! with the sessions it opens (`http/`). What they read, the front answers (`front/`).

#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod lifecycle;
pub(crate) mod stdio;
