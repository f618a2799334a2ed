//! Prometheus metrics (feature `metrics`): what every call, request and connection of one
//! server did, rendered in Prometheus' text format for `GET /metrics`.
//!
//! Built on the `metrics` crate and its Prometheus exporter, without installing a global
//! recorder: each server keeps its own, so that two servers in one process (tests, a program
//! that serves twice) count apart. Every handle a call records into is made once, when the
//! server is built, for the tools of its registry: a call pays a map lookup and a few atomic
//! operations, and no label is ever taken from a request (an unknown tool counts as
//! `unknown`), so the number of series is bounded by the registry. A tool's `category` label
//! is its category (`#[tool(category = "...")]`; a gateway's tool: its upstream), only on the
//! series of a tool that has one.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `mcp_server_operation_duration_seconds` | histogram | `mcp_method_name`, `gen_ai_tool_name`, `error_type`, `network_transport`, `mcp_protocol_version` |
//! | `mcp_server_session_duration_seconds` | histogram | `network_transport`, `mcp_protocol_version` |
//! | `toolsmith_tool_calls_total` | counter | `tool`, `outcome`, `category` |
//! | `toolsmith_tool_calls_in_flight` | gauge | |
//! | `toolsmith_http_requests_total` | counter | `status` |
//! | `toolsmith_auth_refusals_total` | counter | `reason` |
//! | `toolsmith_confirmations_asked_total` | counter | |
//! | `toolsmith_confirmations_answered_total` | counter | `answer` |
//! | `toolsmith_approvals_total` | counter | `approver`, `decision` |
//! | `toolsmith_http_connections_open` | gauge | |
//! | `toolsmith_sessions_open` | gauge | |
//!
//! A program adds series of its own with [`Series`] (given to
//! [`Server::metrics_series`](crate::Server::metrics_series)): they are rendered after these.

mod measured;
mod names;
mod operations;
mod program;
mod tools;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use ::metrics::{Key, Label, Metadata, Recorder};
use metrics_exporter_prometheus::{
    Matcher, PrometheusBuilder, PrometheusHandle, PrometheusRecorder,
};

use crate::outcome::AuthRefusal;
pub(crate) use crate::outcome::Failure;
pub(crate) use crate::outcome::OutcomeLabel;
pub(crate) use crate::request::Operation;
pub(crate) use measured::Measured;
use names::{
    ANSWERED, APPROVALS, ASKED, AUTH_REFUSALS, CONNECTIONS, HTTP_REQUESTS, IN_FLIGHT, OPERATION,
    SESSION, SESSIONS, describe,
};
pub(crate) use operations::Transport;
pub(crate) use tools::CallTimer;
use tools::ToolSeries;

/// The handles a [`Series`] gives: count with `increment`, set a gauge with `set`.
pub use ::metrics::{Counter, Gauge};
pub use program::Series;

/// The label of a tool the registry does not know.
pub(crate) const UNKNOWN_TOOL: &str = "unknown";

/// How often histogram samples are folded into their buckets when nobody scrapes.
const UPKEEP: Duration = Duration::from_secs(5);

/// The buckets of the MCP operation and session histograms, in seconds: the boundaries
/// OpenTelemetry's MCP semantic conventions advise (10 ms to 300 s), and four below them, so
/// that a tool that answers in a millisecond is told from one that takes nine.
const MCP_BUCKETS: [f64; 18] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0,
    120.0, 300.0,
];

static METADATA: Metadata<'static> =
    Metadata::new("toolsmith", ::metrics::Level::INFO, Some("toolsmith"));

/// The metrics of one server. Cheap to clone: every clone records into the same series.
#[derive(Clone)]
pub(crate) struct Metrics {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics")
            .field("tools", &self.inner.tools.len())
            .finish_non_exhaustive()
    }
}

struct Inner {
    recorder: PrometheusRecorder,
    handle: PrometheusHandle,
    tools: HashMap<Arc<str>, ToolSeries, foldhash::fast::RandomState>,
    /// Tools added while serving: their series, made on their first call.
    added: std::sync::Mutex<HashMap<Arc<str>, Arc<ToolSeries>, foldhash::fast::RandomState>>,
    /// What tells a tool added while serving from a name a request made up.
    known: Option<Known>,
    unknown: ToolSeries,
    in_flight: Gauge,
    /// By status code, made on first use (codes are few, and come from the server).
    statuses: Box<[OnceLock<Counter>]>,
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    refusals: [Counter; AuthRefusal::ALL.len()],
    asked: Counter,
    accepted: Counter,
    declined: Counter,
    /// `toolsmith_approvals_total{approver="grant",decision="approved"}`.
    granted: Counter,
    connections: Gauge,
    sessions: Gauge,
    /// How many sessions are open, asked when the metrics are rendered.
    open_sessions: OnceLock<SessionProbe>,
    /// Every request's duration but a tool call's (its tool's series keeps those).
    operations: operations::Operations,
    sessions_ended: operations::Sessions,
    /// The program's own series, rendered after the server's.
    program: OnceLock<Series>,
}

type SessionProbe = Box<dyn Fn() -> Option<usize> + Send + Sync>;

/// Whether the server has a tool of this name now (one added while serving), and its
/// category.
pub(crate) type Known = Box<dyn Fn(&str) -> Option<Option<Arc<str>>> + Send + Sync>;

/// A tool's name, and its category if it has one.
pub(crate) type Named = (Arc<str>, Option<Arc<str>>);

impl Metrics {
    /// Metrics whose call series are made for these tools (any other name counts as
    /// `unknown`, unless `known` says the server has it: a tool added while serving).
    pub(crate) fn new(tools: impl IntoIterator<Item = Named>, known: Option<Known>) -> Metrics {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Full(OPERATION.to_owned()), &MCP_BUCKETS)
            .and_then(|b| b.set_buckets_for_metric(Matcher::Full(SESSION.to_owned()), &MCP_BUCKETS))
            .expect("the duration buckets are not empty")
            .build_recorder();
        describe(&recorder);
        let series =
            |tool: &str, category: Option<&str>| ToolSeries::new(&recorder, tool, category);
        let tools = tools
            .into_iter()
            .map(|(tool, category)| {
                let made = series(&tool, category.as_deref());
                (tool, made)
            })
            .collect();
        Metrics {
            inner: Arc::new(Inner {
                handle: recorder.handle(),
                tools,
                added: Default::default(),
                known,
                unknown: series(UNKNOWN_TOOL, None),
                in_flight: recorder.register_gauge(&key(IN_FLIGHT, &[]), &METADATA),
                statuses: (0..600).map(|_| OnceLock::new()).collect(),
                refusals: AuthRefusal::ALL
                    .map(|why| counter(&recorder, AUTH_REFUSALS, &[("reason", why.as_str())])),
                asked: counter(&recorder, ASKED, &[]),
                accepted: counter(&recorder, ANSWERED, &[("answer", "accepted")]),
                declined: counter(&recorder, ANSWERED, &[("answer", "declined")]),
                granted: counter(
                    &recorder,
                    APPROVALS,
                    &[
                        ("approver", crate::approve::GRANT),
                        ("decision", "approved"),
                    ],
                ),
                connections: recorder.register_gauge(&key(CONNECTIONS, &[]), &METADATA),
                sessions: recorder.register_gauge(&key(SESSIONS, &[]), &METADATA),
                open_sessions: OnceLock::new(),
                operations: operations::Operations::of_every_method(),
                sessions_ended: Default::default(),
                program: OnceLock::new(),
                recorder,
            }),
        }
    }

    /// Every series, in Prometheus' text format (version 0.0.4).
    pub(crate) fn render(&self) -> String {
        if let Some(open) = self.inner.open_sessions.get().and_then(|probe| probe()) {
            self.inner.sessions.set(open as f64);
        }
        let mut text = self.inner.handle.render();
        if let Some(program) = self.inner.program.get() {
            text.push_str(&program.render());
        }
        text
    }

    /// Renders `series` after the server's own (once; a later set is ignored).
    pub(crate) fn render_also(&self, series: Series) {
        let _ = self.inner.program.set(series);
    }

    /// Sessions are counted by asking `probe` at each render (`None`: busy, keep the last
    /// count): the session manager knows best when one ends. Once; later probes are ignored.
    pub(crate) fn count_sessions(&self, probe: impl Fn() -> Option<usize> + Send + Sync + 'static) {
        let _ = self.inner.open_sessions.set(Box::new(probe));
    }

    /// Folds histogram samples into their buckets every few seconds, so that they do not
    /// pile up between scrapes (or without any), until the guard returned is dropped.
    pub(crate) fn keep_up(&self) -> Upkeep {
        let handle = self.inner.handle.clone();
        Upkeep(tokio::spawn(async move {
            let mut every = tokio::time::interval(UPKEEP);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                handle.run_upkeep();
            }
        }))
    }

    /// A call begins: it counts as in flight until the timer is finished or dropped.
    pub(crate) fn call_started(&self) -> CallTimer {
        self.inner.in_flight.increment(1.0);
        CallTimer {
            metrics: self.clone(),
            start: Instant::now(),
        }
    }

    /// A request ended as `op` says, `seconds` after it came; a `tools/call` names the tool
    /// it called (`tool`: counted under its registered name, or `unknown`).
    pub(crate) fn operation(&self, op: Operation<'_>, tool: Option<&str>, seconds: f64) {
        let inner = &self.inner;
        let Some(tool) = tool else {
            inner.operations.record(&inner.recorder, op, None, seconds);
            return;
        };
        inner.with_series(tool, |series| {
            series
                .operations
                .record(&inner.recorder, op, Some(&series.name), seconds);
        });
    }

    /// A session over `transport`, at `version`, ended after `seconds`.
    pub(crate) fn session_ended(&self, transport: Transport, version: Option<&str>, seconds: f64) {
        let inner = &self.inner;
        inner
            .sessions_ended
            .record(&inner.recorder, transport, version, seconds);
    }

    /// An HTTP request was answered with `status`.
    pub(crate) fn http_status(&self, status: u16) {
        let Some(slot) = self.inner.statuses.get(usize::from(status)) else {
            return;
        };
        slot.get_or_init(|| {
            let status = status.to_string();
            let key = Key::from_parts(HTTP_REQUESTS, vec![Label::new("status", status)]);
            self.inner.recorder.register_counter(&key, &METADATA)
        })
        .increment(1);
    }

    /// A request was refused by authorization.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn auth_refused(&self, why: AuthRefusal) {
        self.inner.refusals[why as usize].increment(1);
    }

    /// A confirmation was asked of the user.
    pub(crate) fn confirmation_asked(&self) {
        self.inner.asked.increment(1);
    }

    /// A confirmation was decided by `approver` (an approver's name, `grant` or `client`:
    /// words of the program, never of a request): `approved` or `denied`.
    pub(crate) fn approval_decided(&self, approver: &str, decision: &'static str) {
        if decision == "approved" && approver == crate::approve::GRANT {
            // The one kind of decision a call may meet on every call: made once.
            self.inner.granted.increment(1);
            return;
        }
        let labels = [("approver", approver), ("decision", decision)];
        counter(&self.inner.recorder, APPROVALS, &labels).increment(1);
    }

    /// The user answered a confirmation: yes (`accepted`) or anything else.
    pub(crate) fn confirmation_answered(&self, accepted: bool) {
        let counter = match accepted {
            true => &self.inner.accepted,
            false => &self.inner.declined,
        };
        counter.increment(1);
    }

    /// A connection opened; it counts as open until the guard is dropped.
    pub(crate) fn connection(&self) -> OpenGuard {
        OpenGuard::new(self.inner.connections.clone())
    }
}

/// The task that folds histogram samples up; stopped when dropped (serving ended).
pub(crate) struct Upkeep(tokio::task::JoinHandle<()>);

impl Drop for Upkeep {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Something open (a connection) that a gauge counts until this is dropped.
pub(crate) struct OpenGuard(Gauge);

impl OpenGuard {
    fn new(gauge: Gauge) -> OpenGuard {
        gauge.increment(1.0);
        OpenGuard(gauge)
    }
}

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.decrement(1.0);
    }
}

/// `labels`, and `category` after them when there is one.
fn with_category<'a>(
    mut labels: Vec<(&'static str, &'a str)>,
    category: Option<&'a str>,
) -> Vec<(&'static str, &'a str)> {
    labels.extend(category.map(|category| ("category", category)));
    labels
}

fn key(name: &'static str, labels: &[(&'static str, &str)]) -> Key {
    let labels = labels.iter().map(|&(k, v)| Label::new(k, v.to_owned()));
    Key::from_parts(name, labels.collect::<Vec<_>>())
}

fn counter(
    recorder: &PrometheusRecorder,
    name: &'static str,
    labels: &[(&'static str, &str)],
) -> Counter {
    recorder.register_counter(&key(name, labels), &METADATA)
}

#[cfg(test)]
mod tests;
