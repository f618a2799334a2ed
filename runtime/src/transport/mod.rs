//! The byte streams sessions are served over, one folder per transport. A transport knows
//! rmcp's message types and nothing of the server: a session layer that answers some messages
//! itself plugs in through [`stdio::Shortcut`].

pub(crate) mod stdio;

pub use stdio::DEFAULT_MAX_LINE;
