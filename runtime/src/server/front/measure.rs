//! Every request the server answers, timed as OpenTelemetry's MCP metrics say (feature
//! `metrics`, see `metrics/operations.rs`): the calls, reads and prompts in their log
//! (`call/log.rs`), what the front answers itself here (`answer.rs`), every other method on
//! rmcp's path as its handler answers it (`adapter/measure.rs`); and every session's length,
//! when it ends (`session_end.rs`).

use std::time::Instant;

use rmcp::model::ProtocolVersion;

use super::Front;
use crate::request::Transport;

impl Front {
    /// Whether answers are measured (the server has metrics).
    pub(crate) fn measures(&self) -> bool {
        self.pipeline.metrics.is_some()
    }

    /// When an answer begins, if it is measured.
    pub(crate) fn clock(&self) -> Option<Instant> {
        self.measures().then(Instant::now)
    }

    /// A `method` request over `transport` at `version`, begun at `began`, was answered
    /// with a result.
    pub(crate) fn answered(
        &self,
        began: Option<Instant>,
        method: &'static str,
        transport: Transport,
        version: Option<&ProtocolVersion>,
    ) {
        if let (Some(began), Some(metrics)) = (began, &self.pipeline.metrics) {
            let op = crate::metrics::Operation {
                method,
                transport,
                version: version.map(ProtocolVersion::as_str),
                failure: crate::metrics::Failure::None,
            };
            metrics.operation(op, None, began.elapsed().as_secs_f64());
        }
    }
}
