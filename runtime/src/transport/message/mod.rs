//! What a JSON-RPC message a client sent is, for every transport: its envelope read once, and
//! the one allow-list of what the server answers on a fast path (`request.rs`); a message for
//! rmcp, or an error the transport answers itself (`decode.rs`); and the id of a message too
//! long or too deep to parse, read exactly without parsing it (`idscan.rs`).

mod decode;
mod idscan;
mod request;

pub(crate) use decode::{Decoded, decode};
pub(crate) use idscan::{FoundId, IdScan, Scanned};
pub(crate) use request::{Admit, Envelope, FastRequest, Revision};
