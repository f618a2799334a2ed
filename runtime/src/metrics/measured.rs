//! What the MCP operation metric of one request needs until it is answered: how it came, at
//! which revision, and, for a read or a prompt (a call has its timer), the metrics and when it
//! began.

use std::time::Instant;

use rmcp::model::ProtocolVersion;

use super::{Failure, Metrics, Operation, Transport};

/// One request being measured as an MCP operation.
pub(crate) struct Measured {
    clock: Option<(Metrics, Instant)>,
    transport: Transport,
    version: Option<ProtocolVersion>,
}

impl Measured {
    /// A request over `transport` at `version`, recorded into `metrics` when it ends unless
    /// it is `timed` already (a call's timer records its operation). Always `Some`: an
    /// `Option`, as a server without the feature has no metrics to measure with.
    pub(crate) fn start(
        metrics: &Metrics,
        timed: bool,
        transport: Transport,
        version: Option<&ProtocolVersion>,
    ) -> Option<Measured> {
        Some(Measured {
            clock: (!timed).then(|| (metrics.clone(), Instant::now())),
            transport,
            // A known revision as rmcp's constant: kept without an allocation.
            version: version.map(|version| {
                crate::request::known_version(version.as_str()).unwrap_or_else(|| version.clone())
            }),
        })
    }

    /// The operation of a `method` request that ended as `failure` says.
    pub(crate) fn operation<'a>(&'a self, method: &'a str, failure: Failure) -> Operation<'a> {
        Operation {
            method,
            transport: self.transport,
            version: self.version.as_ref().map(ProtocolVersion::as_str),
            failure,
        }
    }

    /// Records `op`, when this request keeps its own clock.
    pub(crate) fn record(&self, op: Operation<'_>) {
        if let Some((metrics, began)) = &self.clock {
            metrics.operation(op, None, began.elapsed().as_secs_f64());
        }
    }
}
