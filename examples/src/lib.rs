//! Example MCP servers built with toolsmith.
//!
//! - [`store`]: the notes store, plain Rust with no MCP in it.
//! - [`notes`]: the four notes tools of the MCP tutorial, declared with `#[tool]`, and
//!   `tag_chart`, which answers with a PNG bar chart (an image result).
//! - [`library`]: the notes as resources (`notes://index`, `notes://{note_id}`) and the
//!   prompt `summarize_notes`, with completions of note ids and tags.
//! - [`chart`]: that bar chart, drawn into a pixel buffer and encoded as PNG.
//! - [`fetch`]: `import_url`, the open-world tool: a web page or text file made a note,
//!   fetched the safe way.
//! - [`import`]: `import_notes`, a slow import with progress, which runs as a task.
//!
//! Run the server with `cargo run -p toolsmith-examples --example notes`, or the in-process
//! demo with `cargo run -p toolsmith-examples --example notes_demo`.

pub mod chart;
pub mod fetch;
pub mod import;
pub mod library;
pub mod notes;
pub mod store;
