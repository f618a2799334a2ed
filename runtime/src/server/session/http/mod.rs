//! The HTTP side: the fast path the transport offers stateless requests to (`fast.rs`);
//! everything else is rmcp's service, through the adapter.

mod fast;

pub(crate) use fast::HttpFastPath;
