//! Metrics (feature `metrics`): the builder's settings, and the metrics a server serves with.
//!
//! Over HTTP, `/metrics` is served beside the endpoint when nothing guards the endpoint;
//! with authorization, only to a token with [`Server::metrics_scope`], else not at all there
//! (give [`Server::metrics_addr`]). With a metrics address, `/metrics` is served there alone,
//! over HTTP or beside stdio, and never on the public endpoint.

use std::sync::Arc;

use tokio_util::sync::{CancellationToken, DropGuard};

use super::Server;
use super::builder::MetricsConfig;
use crate::metrics::{Metrics, Series, Upkeep};
use crate::transport::http::metrics::{Exposure, serve_apart};
use crate::{Error, registry::RegistryHandle};

/// What keeps metrics going while a server serves: their upkeep, and a listener of their
/// own. Both stop when it is dropped.
pub(super) struct Running {
    _upkeep: Upkeep,
    _apart: Option<DropGuard>,
}

#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
impl Server {
    /// Serves `GET /metrics` (Prometheus' text format) on a listener of its own at `addr`,
    /// without authorization: a port the operator keeps private (loopback, or a network
    /// only Prometheus reaches). A stdio server exports metrics only this way; an HTTP
    /// server given one serves no `/metrics` on its public endpoint.
    ///
    /// ```no_run
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .metrics_addr("127.0.0.1:9464")
    ///     .serve_stdio()
    ///     .await
    /// # }
    /// ```
    pub fn metrics_addr(mut self, addr: impl Into<String>) -> Self {
        self.metrics.addr = Some(addr.into());
        self
    }

    /// With authorization on, serves `GET /metrics` on the public endpoint to a bearer token
    /// that grants `scope` (401 without a valid token, 403 without the scope). Without it,
    /// an authorized server serves no `/metrics` there.
    ///
    /// ```no_run
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .auth(toolsmith::auth::Auth::new("https://issuer.example", "https://issuer.example/jwks"))
    ///     .public_url("https://mcp.example.com/mcp")
    ///     .metrics_scope("metrics:read")
    ///     .serve_http("0.0.0.0:8000")
    ///     .await
    /// # }
    /// ```
    pub fn metrics_scope(mut self, scope: impl Into<String>) -> Self {
        self.metrics.scope = Some(scope.into());
        self
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
impl Server {
    /// One more `Host` that `GET /metrics` answers to, for a scraper that reaches the server
    /// by a name of its own (`prometheus.internal:9464`, or a name without a port for any
    /// port). `/metrics` answers a loopback name, the listener's address and the endpoint's
    /// allowed hosts; any other `Host` gets 403 (DNS rebinding: a page of another site,
    /// resolved to this address, must not read the counters).
    ///
    /// ```no_run
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .metrics_addr("0.0.0.0:9464")
    ///     .metrics_host("toolsmith.monitoring.svc")
    ///     .serve_stdio()
    ///     .await
    /// # }
    /// ```
    pub fn metrics_host(mut self, host: impl Into<String>) -> Self {
        self.metrics.hosts.push(host.into());
        self
    }

    /// Serves the program's own `series` on `/metrics` too, after the server's (wherever
    /// the server serves its own: see [`metrics_addr`](Server::metrics_addr)). One set: a
    /// later one replaces it (clone one [`Series`] to share it).
    ///
    /// ```
    /// use toolsmith::metrics::Series;
    ///
    /// let series = Series::new();
    /// let jobs = series.gauge("myapp_jobs_queued", "Jobs waiting.", &[]);
    /// jobs.set(3.0);
    /// let server = toolsmith::Server::new().metrics_series(series.clone());
    /// # drop(server);
    /// assert!(series.render().contains("myapp_jobs_queued 3"));
    /// ```
    pub fn metrics_series(mut self, series: Series) -> Self {
        self.metrics.series = Some(series);
        self
    }
}

impl MetricsConfig {
    /// The metrics `handler` serves with over HTTP (`authorized`: behind a guard), how the
    /// public endpoint serves them, and what keeps them going.
    pub(super) fn http(
        &self,
        registry: &RegistryHandle,
        live: bool,
        authorized: bool,
    ) -> Result<(Metrics, Exposure, Running), Error> {
        if self.scope.is_some() && !authorized {
            return Err(Error::config(
                "metrics scope",
                "a metrics scope needs authorization (--auth-issuer): without it, /metrics is served to anyone who reaches the server",
            ));
        }
        if self.scope.is_some() && self.addr.is_some() {
            return Err(Error::config(
                "metrics scope",
                "give a metrics scope (a token for /metrics on the public endpoint) or a metrics address (a listener of its own, no token), not both",
            ));
        }
        let (metrics, upkeep) = self.start(registry, live);
        let apart = self.serve_metrics_apart(&metrics)?;
        let exposure = match &self.scope {
            // Served on a listener of its own: not on the public endpoint.
            _ if apart.is_some() => Exposure::Hidden,
            Some(scope) => Exposure::Scoped(scope.clone()),
            None if !authorized => Exposure::Open,
            None => {
                tracing::info!(
                    "/metrics is not served on the authorized endpoint: give a scope \
                     (--metrics-scope) or a listener of its own (--metrics-addr)"
                );
                Exposure::Hidden
            }
        };
        let running = Running {
            _upkeep: upkeep,
            _apart: apart,
        };
        Ok((metrics, exposure, running))
    }

    /// Over stdio: metrics only on a listener of their own (the metrics of the set
    /// `registry` serves, `live`: it may change), and what keeps them going.
    pub(super) fn stdio(
        &self,
        registry: &RegistryHandle,
        live: bool,
    ) -> Result<Option<(Metrics, Running)>, Error> {
        if self.scope.is_some() {
            return Err(Error::config(
                "metrics scope",
                "a metrics scope applies to /metrics on an HTTP endpoint: over stdio, give a metrics address (--metrics-addr)",
            ));
        }
        if self.addr.is_none() {
            return Ok(None);
        }
        let (metrics, upkeep) = self.start(registry, live);
        let apart = self.serve_metrics_apart(&metrics)?;
        let running = Running {
            _upkeep: upkeep,
            _apart: apart,
        };
        Ok(Some((metrics, running)))
    }

    /// The metrics of `registry`'s tools (see [`start_metrics`]), and the program's own.
    fn start(&self, registry: &RegistryHandle, live: bool) -> (Metrics, Upkeep) {
        let (metrics, upkeep) = start_metrics(registry, live);
        if let Some(series) = &self.series {
            metrics.render_also(series.clone());
        }
        (metrics, upkeep)
    }

    /// The listener of the metrics address, when one was given.
    fn serve_metrics_apart(&self, metrics: &Metrics) -> Result<Option<DropGuard>, Error> {
        let Some(addr) = &self.addr else {
            return Ok(None);
        };
        let addr = super::http::resolve(addr.as_str(), "metrics address")?;
        let stop = CancellationToken::new();
        serve_apart(addr, metrics.clone(), &self.hosts, stop.clone())?;
        Ok(Some(stop.drop_guard()))
    }
}

/// Metrics for the tools of `registry` (`live`: tools may join it), which the pipeline made
/// with them records into, folded up in the background.
fn start_metrics(registry: &RegistryHandle, live: bool) -> (Metrics, Upkeep) {
    let tools = registry.current();
    let names = tools
        .tools()
        .iter()
        .map(|t| (Arc::from(t.name()), t.category().map(Arc::from)));
    let known = live.then(|| {
        let registry = registry.clone();
        Box::new(move |name: &str| {
            let tools = registry.load();
            let tool = tools.get(name)?;
            Some(tool.category().map(Arc::from))
        }) as crate::metrics::Known
    });
    let metrics = Metrics::new(names, known);
    let upkeep = metrics.keep_up();
    (metrics, upkeep)
}
