//! What a JSON-RPC message a client sent is, for every transport: a message for rmcp, or an
//! error the transport answers itself (`decode.rs`), and the id of a message too long or
//! too deep to parse, read exactly without parsing it (`idscan.rs`).

mod decode;
mod idscan;

pub(crate) use decode::{Decoded, decode};
pub(crate) use idscan::{FoundId, IdScan, Scanned};
