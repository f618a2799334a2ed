//! Example MCP servers built with toolsmith.
//!
//! - [`store`]: the notes store, plain Rust with no MCP in it.
//! - [`notes`]: the four notes tools of the MCP tutorial, declared with `#[tool]`.
//!
//! Run the server with `cargo run -p toolsmith-examples --example notes`, or the in-process
//! demo with `cargo run -p toolsmith-examples --example notes_demo`.

pub mod notes;
pub mod store;
