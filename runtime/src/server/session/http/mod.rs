//! The HTTP session side: the fast path the transport offers stateless requests to
//! (`fast.rs`), and the notifications of a call on rmcp's path, sent through its request's
//! peer (`peer.rs`).

mod fast;
mod peer;

pub(crate) use fast::HttpFastPath;
pub(crate) use peer::PeerNotices;
