//! Newline-delimited JSON-RPC over a pair of byte streams: the process's standard streams
//! (guarded, see `streams.rs`), or any async reader and writer.
//!
//! - `lines.rs`: the line framing and rmcp's `Transport` over it.
//! - what a whole line is, and the errors the transport answers itself, is shared with
//!   HTTP: `transport/message/`.
//! - `outbox.rs`: the writing half, shared by responses and notifications.
//! - `streams.rs`: taking over stdin and stdout.

mod lines;
mod outbox;
mod streams;

pub(crate) use lines::DEFAULT_MAX_LINE;
pub(crate) use lines::{Input, LineTransport, Output, SessionLayer};
pub(crate) use outbox::Outbox;
pub(crate) use streams::take;
