//! Newline-delimited JSON-RPC over a pair of byte streams: the process's standard streams
//! (guarded, see `streams.rs`), or any async reader and writer.
//!
//! - `lines.rs`: the line framing and rmcp's `Transport` over it.
//! - `decode.rs`: what a whole line is, and the errors the transport answers itself.
//! - `idscan.rs`: the id of a line too long to buffer, read while it is skipped.
//! - `outbox.rs`: the writing half, shared by responses and notifications.
//! - `streams.rs`: taking over stdin and stdout.

mod decode;
mod idscan;
mod lines;
mod outbox;
mod streams;

pub use lines::DEFAULT_MAX_LINE;
pub(crate) use lines::{Input, LineTransport, Output, SessionLayer};
pub(crate) use outbox::Outbox;
pub(crate) use streams::take;
