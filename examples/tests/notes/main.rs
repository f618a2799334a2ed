//! The notes server of the examples, in-process through `toolsmith::testing`: the tutorial's
//! contract (`contract.rs`), its resources and prompt (`library.rs`), `import_url` against
//! a loopback web server (`import.rs`) and the limits on tags (`tags.rs`).
//!
//! `proxy_env.rs` is a binary of its own: it sets the proxy variables for the whole process.

mod contract;
mod import;
mod library;
mod tags;
