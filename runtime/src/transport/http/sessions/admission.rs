//! What a request screened in its session holds until its response is made: the cap's
//! count of an `initialize`, its request id in flight, and what its answer changes of the
//! session (an end, a log level, a stream, a subscription).

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::{Owner, SessionRoute};
use crate::context::Caller;

/// What a screened request holds until its response is made (or written whole).
#[derive(Default)]
pub(in crate::transport::http) struct Admission {
    /// An `initialize` counted against the cap, and its caller (with authorization).
    pub(super) opening: Option<(Opening, Option<Owner>)>,
    /// A request id kept in flight in its session.
    pub(super) claim: Option<Claim>,
    /// A `DELETE` of an existing session.
    pub(super) delete: bool,
    /// The session a `DELETE` ends.
    pub(super) session: Option<String>,
    /// Where the request goes, when its session is one the server opened.
    pub(in crate::transport::http) route: Option<SessionRoute>,
    /// A `logging/setLevel` of a session: its id and the level, for the other replicas.
    pub(super) level: Option<(String, String)>,
    /// A session's `GET` stream, opening here: its id and caller.
    pub(super) stream: Option<(String, Caller)>,
    /// A `resources/subscribe` (`true`) or `unsubscribe` of a session: its id and the URI.
    pub(super) subscription: Option<(String, String, bool, Caller)>,
}

/// An `initialize` counted against the cap until its response is made.
pub(super) struct Opening(pub(super) Arc<AtomicUsize>);

impl Drop for Opening {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A request id in flight in its session.
pub(super) struct Claim {
    pub(super) key: Option<(String, String)>,
    pub(super) in_flight: Arc<Mutex<HashSet<(String, String)>>>,
}

impl Drop for Claim {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
            in_flight.remove(&key);
        }
    }
}
