//! The byte streams sessions are served over, one folder per transport. A transport knows
//! rmcp's message types and nothing of the server: a session layer that answers some messages
//! itself plugs in through [`stdio::SessionLayer`].

#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod message;
pub(crate) mod stdio;

#[cfg(feature = "http")]
pub(crate) use http::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_BODY,
    DEFAULT_MAX_SESSIONS,
};
pub(crate) use stdio::DEFAULT_MAX_LINE;
