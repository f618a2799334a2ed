//! What ends with a session: the approvals remembered for it, and, with metrics, its length
//! (OpenTelemetry's `mcp.server.session.duration`).

use std::sync::OnceLock;
use std::time::Instant;

use rmcp::model::ProtocolVersion;

use super::Core;

/// A session's end, when its last handler is dropped.
pub(crate) struct SessionEnd {
    /// The server's number for the session.
    pub(super) id: u64,
    grants: crate::approve::Grants,
    /// The revision its `initialize` agreed on (kept when its length is counted).
    version: OnceLock<ProtocolVersion>,
    /// Where its length is counted: a session of a transport that keeps them, with metrics.
    counted: Option<Counted>,
}

/// Where and since when a session's length is counted.
struct Counted {
    metrics: crate::metrics::Metrics,
    transport: crate::request::Transport,
    began: Instant,
}

impl SessionEnd {
    /// The end of session `id` of `core`'s server.
    pub(super) fn new(id: u64, core: &Core) -> SessionEnd {
        SessionEnd {
            id,
            grants: core.pipeline.approvals.grants.clone(),
            version: OnceLock::new(),
            counted: core
                .pipeline
                .metrics
                .clone()
                .filter(|_| core.keeps_sessions)
                .map(|metrics| Counted {
                    metrics,
                    transport: core.transport,
                    began: Instant::now(),
                }),
        }
    }

    /// Its `initialize` agreed on `version`.
    pub(crate) fn agreed(&self, version: &ProtocolVersion) {
        if self.counted.is_some() {
            let _ = self.version.set(version.clone());
        }
    }
}

impl Drop for SessionEnd {
    fn drop(&mut self) {
        self.grants.end_session(self.id);
        if let Some(counted) = &self.counted {
            let version = self.version.get().map(ProtocolVersion::as_str);
            let seconds = counted.began.elapsed().as_secs_f64();
            counted
                .metrics
                .session_ended(counted.transport, version, seconds);
        }
    }
}
