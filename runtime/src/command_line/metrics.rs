//! `serve`'s metrics flags (feature `metrics`).

use clap::Args;

use crate::Server;

/// Where `GET /metrics` is served.
#[derive(Args, Debug, Default)]
pub(super) struct MetricsArgs {
    /// Serve /metrics (Prometheus) on a listener of its own at ADDR, without authorization
    /// (keep it private); the only way beside stdio. An HTTP server given one serves no
    /// /metrics on its public endpoint.
    #[arg(long, value_name = "ADDR", env = "TOOLSMITH_METRICS_ADDR")]
    metrics_addr: Option<String>,
    /// With authorization, serve /metrics on the public endpoint to tokens with SCOPE.
    /// Without this (or --metrics-addr), an authorized server serves no /metrics.
    #[arg(long, value_name = "SCOPE", env = "TOOLSMITH_METRICS_SCOPE")]
    metrics_scope: Option<String>,
    /// One more Host that /metrics answers to (repeatable), for a scraper that reaches the
    /// server by another name; any other Host gets 403.
    #[arg(
        long = "metrics-host",
        value_name = "NAME",
        env = "TOOLSMITH_METRICS_HOSTS",
        value_delimiter = ','
    )]
    metrics_hosts: Vec<String>,
}

impl MetricsArgs {
    /// `server` with these settings.
    pub(super) fn apply(self, mut server: Server) -> Server {
        if let Some(addr) = self.metrics_addr {
            server = server.metrics_addr(addr);
        }
        if let Some(scope) = self.metrics_scope {
            server = server.metrics_scope(scope);
        }
        for host in self.metrics_hosts {
            server = server.metrics_host(host);
        }
        server
    }
}
