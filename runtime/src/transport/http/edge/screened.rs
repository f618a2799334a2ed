//! What screening a request comes to: answered at the edge, or on to rmcp with what its
//! session and its call need there.

use std::sync::Arc;

use axum::body::Body as HttpBody;
use axum::extract::Request;
use axum::response::Response;

use super::super::sessions;

/// What screening a request comes to (a request it refuses is its `Err`).
// Made once per request and matched at once: boxing would cost an allocation for nothing.
#[allow(clippy::large_enum_variant)]
pub(super) enum Screening {
    /// Answered here: by the fast path (a session opened there too), or a response no
    /// request waits for, accepted.
    Answered(Response),
    /// On to rmcp.
    Onward(Screened),
}

/// A request that goes on to rmcp.
pub(super) struct Screened {
    pub(super) request: Request,
    /// A tool call's notifications, to go on its own response.
    pub(super) events: Option<super::events::Events>,
    /// What its session holds until it is answered.
    pub(super) admission: sessions::Admission,
    /// The server's state of its session, when the server opened it.
    pub(super) core: Option<sessions::SessionCore>,
    /// What the requests of that session pass on their way to rmcp.
    pub(super) gate: Option<Arc<sessions::RestoreGate>>,
}

impl Screened {
    pub(super) fn pass(request: Request) -> Screened {
        Screened {
            request,
            events: None,
            admission: sessions::Admission::default(),
            core: None,
            gate: None,
        }
    }
}

/// A POST read whole, on its way to rmcp.
pub(super) fn to_rmcp(
    parts: axum::http::request::Parts,
    bytes: axum::body::Bytes,
    events: Option<super::events::Events>,
    admission: sessions::Admission,
    route: Option<sessions::SessionRoute>,
) -> Screened {
    let (core, gate) = match route {
        Some(route) => {
            let (core, gate) = route.into_parts();
            (Some(core), Some(gate))
        }
        None => (None, None),
    };
    Screened {
        request: Request::from_parts(parts, HttpBody::from(bytes)),
        events,
        admission,
        core,
        gate,
    }
}
