//! The HTTP side: the fast path the transport offers requests to (`fast.rs`), with the
//! sessions it opens (`seat.rs`); everything else is rmcp's service, through the adapter.

mod fast;
mod seat;

pub(crate) use fast::HttpFastPath;
pub(crate) use seat::Seat;
