//! What ends with a session: the approvals remembered for it, and, with metrics, its length
//! (OpenTelemetry's `mcp.server.session.duration`).

#[cfg(feature = "metrics")]
use std::sync::OnceLock;
#[cfg(feature = "metrics")]
use std::time::Instant;

use rmcp::model::ProtocolVersion;

use super::Hub;

/// A session's end, when its last handler is dropped.
pub(super) struct SessionEnd {
    /// The server's number for the session.
    pub(super) id: u64,
    grants: crate::approve::Grants,
    #[cfg(feature = "metrics")]
    began: Instant,
    /// The revision its `initialize` agreed on.
    #[cfg(feature = "metrics")]
    version: OnceLock<ProtocolVersion>,
    /// Where its length is counted: a session of a transport that keeps them, with metrics.
    #[cfg(feature = "metrics")]
    counted: Option<(crate::metrics::Metrics, crate::request::Transport)>,
}

impl SessionEnd {
    /// The end of session `id` of `hub`'s server.
    pub(super) fn new(id: u64, hub: &Hub) -> SessionEnd {
        SessionEnd {
            id,
            grants: hub.pipeline.approvals.grants.clone(),
            #[cfg(feature = "metrics")]
            began: Instant::now(),
            #[cfg(feature = "metrics")]
            version: OnceLock::new(),
            #[cfg(feature = "metrics")]
            counted: hub
                .pipeline
                .metrics
                .clone()
                .filter(|_| hub.keeps_sessions)
                .map(|metrics| (metrics, hub.transport)),
        }
    }

    /// Its `initialize` agreed on `version`.
    pub(super) fn agreed(&self, version: &ProtocolVersion) {
        #[cfg(feature = "metrics")]
        let _ = self.version.set(version.clone());
        #[cfg(not(feature = "metrics"))]
        let _ = version;
    }
}

impl Drop for SessionEnd {
    fn drop(&mut self) {
        self.grants.end_session(self.id);
        #[cfg(feature = "metrics")]
        if let Some((metrics, transport)) = &self.counted {
            let version = self.version.get().map(ProtocolVersion::as_str);
            metrics.session_ended(*transport, version, self.began.elapsed().as_secs_f64());
        }
    }
}
