//! The notes server of the examples, in-process through `toolsmith::testing`: the tutorial's
//! contract (`contract.rs`), its resources and prompt (`library.rs`), `import_url` against
//! a loopback web server (`import.rs`), a forward proxy in the environment (`proxy_env.rs`,
//! in a process of its own) and the limits on tags (`tags.rs`).

mod contract;
mod import;
mod library;
mod proxy_env;
mod tags;
