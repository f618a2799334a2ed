//! Every request the server answers, timed as OpenTelemetry's MCP metrics say (feature
//! `metrics`, see `metrics/operations.rs`): the calls, reads and prompts in their log
//! (`call/log.rs`), the fast paths' lists here, and every other method on rmcp's path as
//! its handler answers it; and every session's length, when it ends.

use std::future::Future;
use std::time::Instant;

use rmcp::model::ProtocolVersion;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use super::ToolServer;
use crate::request::Transport;

impl ToolServer {
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

    /// The revision of a request on rmcp's path, when it is measured.
    pub(super) fn version_for(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Option<ProtocolVersion> {
        if !self.measures() {
            return None;
        }
        version_of(context)
    }

    /// `answer`, the answer to a `method` request on rmcp's path of `version`, timed.
    pub(super) async fn measured<T>(
        &self,
        method: &'static str,
        version: Option<ProtocolVersion>,
        answer: impl Future<Output = Result<T, ErrorData>>,
    ) -> Result<T, ErrorData> {
        let began = self.clock();
        let answer = answer.await;
        if let (Some(began), Some(metrics)) = (began, &self.pipeline.metrics) {
            let op = crate::metrics::Operation {
                method,
                transport: self.transport,
                version: version.as_ref().map(ProtocolVersion::as_str),
                failure: match &answer {
                    Ok(_) => crate::metrics::Failure::None,
                    Err(error) => crate::metrics::Failure::Code(error.code.0),
                },
            };
            metrics.operation(op, None, began.elapsed().as_secs_f64());
        }
        answer
    }
}

/// The revision a request on rmcp's path is of: its own (2026-07-28), or its session's.
fn version_of(context: &RequestContext<RoleServer>) -> Option<ProtocolVersion> {
    match context.meta.protocol_version() {
        Some(own) => Some(own),
        None => context
            .peer
            .peer_info()
            .map(|info| info.protocol_version.clone()),
    }
}
