//! The methods rmcp's handler answers, timed as the front times its own answers
//! (`front/measure.rs`): the revision a request on rmcp's path is of, and its answer timed.

use std::future::Future;

use rmcp::model::ProtocolVersion;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use crate::server::front::Front;

impl Front {
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
