//! What the gateway counts of the sessions it opens as its callers, per upstream and by the
//! identity the upstream sees (feature `metrics`, served on the gateway's `/metrics` once
//! given to `Server::metrics_series`). The series are labelled by upstream and mode, never
//! by caller: a caller label would make a series for every user who ever called; the log
//! names the caller and the subject the upstream saw.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `toolsmith_gateway_caller_sessions_opened_total` | counter | `upstream`, `identity` |
//! | `toolsmith_gateway_caller_sessions_open` | gauge | `upstream`, `identity` |
//! | `toolsmith_gateway_caller_sessions_refused_total` | counter | `upstream`, `identity` |
//! | `toolsmith_gateway_caller_tokens_refused_total` | counter | `upstream`, `identity` |
//! | `toolsmith_gateway_caller_tokens_failed_total` | counter | `upstream`, `identity` |
//!
//! `identity` is how the upstream knows the caller: `exchange`, `mint`, `sign_in`, or
//! `environment` (a child of their own, started with their environment).
//!
//! Without the feature, the same calls count nothing.

#[cfg(feature = "metrics")]
use toolsmith::metrics::{Counter, Gauge, Series};

use crate::Upstream;

#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
impl Upstream {
    /// Counts its sessions per caller into `series` (give the same one to
    /// `Server::metrics_series` to serve them on `/metrics`): opened, open now, refused
    /// past the bound, tokens the upstream refused (401) and tokens not had, by upstream and
    /// identity (`exchange`, `mint`, `sign_in`, `environment`).
    ///
    /// ```
    /// use toolsmith::metrics::Series;
    /// use toolsmith_gateway::{PerCaller, Upstream};
    ///
    /// let series = Series::new();
    /// let shell = Upstream::stdio("shell", "shell-mcp")
    ///     .per_caller(PerCaller::new())
    ///     .metrics(series.clone());
    /// let server = toolsmith::Server::new().metrics_series(series);
    /// # drop((shell, server));
    /// ```
    pub fn metrics(mut self, series: Series) -> Self {
        self.series = Some(series);
        self
    }
}

/// The series of one upstream's sessions per caller.
#[derive(Clone)]
pub(crate) struct Meter {
    #[cfg(feature = "metrics")]
    counted: Option<std::sync::Arc<Counted>>,
}

#[cfg(feature = "metrics")]
struct Counted {
    opened: Counter,
    open: Gauge,
    refused: Counter,
    tokens_refused: Counter,
    tokens_failed: Counter,
}

/// A session counted as open until dropped.
pub(crate) struct Open {
    #[cfg(feature = "metrics")]
    gauge: Option<Gauge>,
}

impl Drop for Open {
    fn drop(&mut self) {
        #[cfg(feature = "metrics")]
        if let Some(gauge) = &self.gauge {
            gauge.decrement(1.0);
        }
    }
}

impl Meter {
    /// The series of `upstream`'s sessions, which know their callers by `identity`.
    #[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
    pub(crate) fn of(upstream: &Upstream, identity: &'static str) -> Meter {
        #[cfg(feature = "metrics")]
        {
            let counted = upstream.series.as_ref().map(|series| {
                let labels = [("upstream", upstream.name()), ("identity", identity)];
                std::sync::Arc::new(Counted {
                    opened: series.counter(
                        "toolsmith_gateway_caller_sessions_opened_total",
                        "Sessions an upstream was opened in as one caller, by upstream and identity (exchange, mint, sign_in, environment).",
                        &labels,
                    ),
                    open: series.gauge(
                        "toolsmith_gateway_caller_sessions_open",
                        "Sessions open now as one caller each, by upstream and identity.",
                        &labels,
                    ),
                    refused: series.counter(
                        "toolsmith_gateway_caller_sessions_refused_total",
                        "Calls refused because every session of the upstream's bound was in use.",
                        &labels,
                    ),
                    tokens_refused: series.counter(
                        "toolsmith_gateway_caller_tokens_refused_total",
                        "Callers' tokens the upstream refused (401), by upstream and identity.",
                        &labels,
                    ),
                    tokens_failed: series.counter(
                        "toolsmith_gateway_caller_tokens_failed_total",
                        "Calls that got no token for their caller (a refused exchange, a sign-in not done), by upstream and identity.",
                        &labels,
                    ),
                })
            });
            Meter { counted }
        }
        #[cfg(not(feature = "metrics"))]
        Meter {}
    }

    /// A session was opened: open until the guard is dropped.
    pub(crate) fn opened(&self) -> Open {
        #[cfg(feature = "metrics")]
        {
            let gauge = self.counted.as_ref().map(|c| {
                c.opened.increment(1);
                c.open.increment(1.0);
                c.open.clone()
            });
            Open { gauge }
        }
        #[cfg(not(feature = "metrics"))]
        Open {}
    }

    /// A call was refused: every session within the bound was in use.
    pub(crate) fn refused(&self) {
        #[cfg(feature = "metrics")]
        if let Some(c) = &self.counted {
            c.refused.increment(1);
        }
    }

    /// The upstream refused a caller's token (401).
    pub(crate) fn token_refused(&self) {
        #[cfg(feature = "metrics")]
        if let Some(c) = &self.counted {
            c.tokens_refused.increment(1);
        }
    }

    /// No token was had for a caller.
    pub(crate) fn token_failed(&self) {
        #[cfg(feature = "metrics")]
        if let Some(c) = &self.counted {
            c.tokens_failed.increment(1);
        }
    }
}
