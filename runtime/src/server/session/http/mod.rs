//! The HTTP side: the fast path the transport offers requests to (`fast.rs`), with the
//! sessions it opens (`fast_session.rs`); everything else is rmcp's service, through its handler
//! (`adapter/`).

mod fast;
mod fast_session;

pub(crate) use fast::HttpFastPath;
pub(crate) use fast_session::FastSession;
