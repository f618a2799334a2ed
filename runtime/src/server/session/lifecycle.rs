//! What a session has become, and which of its requests are in flight: kept once, for both
//! paths that answer requests (the fast path and rmcp's service loop), so that they never
//! disagree about the session's revision or about an id.
//!
//! A session is decided by its first request that rmcp accepts: `initialize` makes it a
//! handshake session, a request carrying its own revision (2026-07-28) a per-request one;
//! either way the fast path then serves its tools, in that revision's shapes. A per-request session stays one: a
//! later `initialize` is refused with `-32600` (rmcp would answer it, yet go on refusing every
//! request without `_meta`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use rmcp::RoleServer;
use rmcp::model::{
    ClientCapabilities, ClientRequest, ErrorCode, ErrorData, GetMeta, JsonRpcMessage, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio_util::sync::CancellationToken;

use crate::transport::message::Revision;

/// No request has decided the session yet.
const UNDECIDED: u8 = 0;
/// An `initialize` request went to rmcp.
const INITIALIZING: u8 = 1;
/// rmcp answered `initialize` with a revision that has the handshake (2024-11-05 to
/// 2025-11-25): the fast path serves tools.
const HANDSHAKE: u8 = 2;
/// The session started with a request carrying its own revision (2026-07-28): rmcp serves
/// it all, whatever comes later; an `initialize` is refused.
const INLINE: u8 = 3;
/// rmcp accepted the request that made the session per-request: the fast path serves it.
const INLINE_STARTED: u8 = 4;

/// The session's lifecycle, decided once by its first requests.
#[derive(Default)]
pub(crate) struct Lifecycle {
    stage: AtomicU8,
    /// The request that made the session per-request (INLINE), until rmcp answers it: rmcp
    /// starts the session only when it accepts that request, and stays undecided when it
    /// refuses it (missing metadata, an unsupported revision).
    tentative: Mutex<Option<RequestId>>,
    /// What the client declared in its `initialize`.
    capabilities: OnceLock<Arc<ClientCapabilities>>,
    /// The revision `initialize` agreed on.
    negotiated: OnceLock<rmcp::model::ProtocolVersion>,
}

/// What to do with a message before rmcp sees it.
pub(crate) enum Admit {
    Pass,
    /// Nothing may answer it (a notification or a response).
    Ignore(&'static str),
    /// Answer it here with this error.
    Refuse(RequestId, ErrorData),
}

impl Lifecycle {
    /// The capabilities the client declared in `initialize`, once it has.
    pub(crate) fn capabilities(&self) -> Option<Arc<ClientCapabilities>> {
        self.capabilities.get().cloned()
    }

    /// The revision the session's `initialize` agreed on, once it has.
    pub(crate) fn negotiated(&self) -> Option<&rmcp::model::ProtocolVersion> {
        self.negotiated.get()
    }

    /// What the fast path may answer: requests without their own revision once the session
    /// negotiated a handshake revision; requests carrying 2026-07-28 once the session is
    /// per-request; nothing before the session is decided (rmcp decides it).
    pub(crate) fn serving(&self) -> Option<Revision> {
        match self.stage.load(Ordering::Acquire) {
            HANDSHAKE => Some(Revision::Negotiated),
            INLINE_STARTED => Some(Revision::PerRequest),
            _ => None,
        }
    }

    /// Before the session starts, rmcp ends it on a notification or a response, and answers
    /// an unknown method as a request lacking metadata: those are handled here instead.
    /// In a per-request session, `initialize` is refused (see the module's doc).
    pub(crate) fn admit(&self, message: &RxJsonRpcMessage<RoleServer>) -> Admit {
        match self.stage.load(Ordering::Acquire) {
            UNDECIDED => {}
            INLINE | INLINE_STARTED => return late_initialize(message),
            _ => return Admit::Pass,
        }
        let JsonRpcMessage::Request(request) = message else {
            return Admit::Ignore("a notification or response came before the session started");
        };
        match &request.request {
            ClientRequest::InitializeRequest(initialize) => {
                let declared = initialize.params.capabilities.clone();
                let _ = self.capabilities.set(Arc::new(declared));
                self.stage.store(INITIALIZING, Ordering::Release);
            }
            // rmcp answers these and stays open to either lifecycle.
            ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => {}
            ClientRequest::CustomRequest(custom) => {
                let error = ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("Method not found: '{}'", custom.method),
                    None,
                );
                return Admit::Refuse(request.id.clone(), error);
            }
            other if other.get_meta().protocol_version().is_some() => {
                *self.tentative() = Some(request.id.clone());
                self.stage.store(INLINE, Ordering::Release);
            }
            _ => {}
        }
        Admit::Pass
    }

    /// Sees what rmcp sends: its answer to `initialize` settles a handshake session; its
    /// answer to the request that made the session per-request settles that, or (an error)
    /// leaves the session undecided again.
    pub(crate) fn observe(&self, frame: &TxJsonRpcMessage<RoleServer>) {
        match frame {
            JsonRpcMessage::Response(response) => {
                if let rmcp::model::ServerResult::InitializeResult(result) = &response.result
                    && result.protocol_version.has_initialize()
                {
                    // A known revision is kept as its constant: cloned for free per call.
                    let agreed = &result.protocol_version;
                    let known = rmcp::model::ProtocolVersion::KNOWN_VERSIONS
                        .iter()
                        .find(|known| *known == agreed);
                    let _ = self.negotiated.set(known.unwrap_or(agreed).clone());
                    let _ = self.stage.compare_exchange(
                        INITIALIZING,
                        HANDSHAKE,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    );
                }
                self.settle(&response.id, false);
            }
            JsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    self.settle(id, true);
                }
            }
            _ => {}
        }
    }

    fn settle(&self, id: &RequestId, refused: bool) {
        let mut tentative = self.tentative();
        if tentative.as_ref() == Some(id) {
            *tentative = None;
            let settled = if refused { UNDECIDED } else { INLINE_STARTED };
            let _ =
                self.stage
                    .compare_exchange(INLINE, settled, Ordering::AcqRel, Ordering::Acquire);
        }
    }

    fn tentative(&self) -> MutexGuard<'_, Option<RequestId>> {
        self.tentative.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Refuses an `initialize` in a per-request session. rmcp decides whether the request that
/// made the session per-request starts it before it reads the next message (its refusal is
/// observed first), so the session is per-request by the time this sees an `initialize`.
fn late_initialize(message: &RxJsonRpcMessage<RoleServer>) -> Admit {
    match message {
        JsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::InitializeRequest(_)) =>
        {
            let error = ErrorData::invalid_request(
                "Invalid Request: this session is per-request (its first request carried \
                 protocol version 2026-07-28 in _meta), so initialize is not accepted; send \
                 every request with its _meta, or start a new session to initialize",
                None,
            );
            Admit::Refuse(request.id.clone(), error)
        }
        _ => Admit::Pass,
    }
}

/// A request in flight: on the fast path (its number and its cancellation), or with rmcp
/// (the id rmcp knows it by).
enum Owner {
    Fast(u64, CancellationToken),
    Rmcp(i64),
}

/// The session's requests in flight, by id. An id may be in flight once: a request reusing
/// it is refused on either path.
///
/// rmcp keys what it keeps of a request (its cancellation, whether to send its answer) by the
/// request's id alone, and still runs a cancelled request when the client reuses its id: the
/// two would share an entry, and the new one could get the old one's answer, or none. So rmcp
/// never sees a client's id: each request it answers gets an id of the session's own
/// (`Requests::claim_rmcp`), a cancellation is passed on under that id, and an answer goes
/// back under the client's id (`Requests::answered`), unless its request was cancelled.
#[derive(Default)]
pub(crate) struct Requests {
    map: Mutex<Map>,
    /// How many entries the map of client ids holds, read without the lock.
    len: AtomicUsize,
}

#[derive(Default)]
struct Map {
    /// By the client's id.
    by_id: HashMap<RequestId, Owner>,
    /// The requests rmcp answers, by the id it knows them by.
    rmcp: HashMap<i64, RequestId>,
    /// The id the next request rmcp answers gets.
    next: i64,
}

impl Requests {
    fn map(&self) -> MutexGuard<'_, Map> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_len(&self, map: &Map) {
        self.len.store(map.by_id.len(), Ordering::Release);
    }

    /// Whether `id` is free (no request in flight has it).
    pub(crate) fn is_free(&self, id: &RequestId) -> bool {
        self.len.load(Ordering::Acquire) == 0 || !self.map().by_id.contains_key(id)
    }

    /// Takes `id` for a fast-path call; `false` when it is in flight already.
    pub(crate) fn claim_fast(&self, id: &RequestId, number: u64, token: CancellationToken) -> bool {
        let mut map = self.map();
        if map.by_id.contains_key(id) {
            return false;
        }
        map.by_id.insert(id.clone(), Owner::Fast(number, token));
        self.set_len(&map);
        true
    }

    /// Takes `id` for a request rmcp answers: the id rmcp is to know it by, or `None` when
    /// `id` is in flight already.
    pub(crate) fn claim_rmcp(&self, id: &RequestId) -> Option<RequestId> {
        let mut map = self.map();
        if map.by_id.contains_key(id) {
            return None;
        }
        let alias = map.next;
        map.next = alias.wrapping_add(1);
        map.by_id.insert(id.clone(), Owner::Rmcp(alias));
        map.rmcp.insert(alias, id.clone());
        self.set_len(&map);
        Some(RequestId::Number(alias))
    }

    /// Gives back the id of fast-path call `number`: `false` when it was cancelled (its
    /// response must not be sent).
    pub(crate) fn finish_fast(&self, id: &RequestId, number: u64) -> bool {
        if self.len.load(Ordering::Acquire) == 0 {
            return false;
        }
        let mut map = self.map();
        if !matches!(map.by_id.get(id), Some(Owner::Fast(n, _)) if *n == number) {
            return false;
        }
        map.by_id.remove(id);
        self.set_len(&map);
        true
    }

    /// rmcp answered the request it knows as `alias`: the client's id to answer, or `None`
    /// when the request was cancelled (nothing may be sent).
    pub(crate) fn answered(&self, alias: &RequestId) -> Option<RequestId> {
        let RequestId::Number(alias) = alias else {
            return None;
        };
        let mut map = self.map();
        let id = map.rmcp.remove(alias)?;
        map.by_id.remove(&id);
        self.set_len(&map);
        Some(id)
    }

    /// The client cancelled `id`: a fast-path call is stopped and never answered; for a
    /// request rmcp answers, the id rmcp knows it by, to pass the cancellation on under.
    pub(crate) fn cancel(&self, id: &RequestId) -> Option<RequestId> {
        if self.len.load(Ordering::Acquire) == 0 {
            return None;
        }
        let mut map = self.map();
        let owner = map.by_id.remove(id)?;
        let alias = match owner {
            Owner::Fast(_, token) => {
                token.cancel();
                None
            }
            Owner::Rmcp(alias) => {
                map.rmcp.remove(&alias);
                Some(RequestId::Number(alias))
            }
        };
        self.set_len(&map);
        alias
    }

    /// At the end of the session: stops every fast-path call still running.
    pub(crate) fn cancel_all(&self) {
        let mut map = self.map();
        for (_, owner) in map.by_id.drain() {
            if let Owner::Fast(_, token) = owner {
                token.cancel();
            }
        }
        map.rmcp.clear();
        self.len.store(0, Ordering::Release);
    }
}

/// The answer to a request whose id is already in flight.
pub(crate) fn id_in_use(id: &RequestId) -> ErrorData {
    ErrorData::invalid_request(
        format!("Invalid Request: id {id} is already in use by a request in flight"),
        None,
    )
}

#[cfg(test)]
mod tests;
