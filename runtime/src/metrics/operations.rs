//! OpenTelemetry's MCP server metrics, as its semantic conventions name them: how long every
//! request took (`mcp.server.operation.duration`) and every session lasted
//! (`mcp.server.session.duration`), in Prometheus' form (`mcp_server_operation_duration_seconds`
//! with `mcp_method_name`, `gen_ai_tool_name`, `error_type`, `network_transport`,
//! `mcp_protocol_version`), so that a dashboard made for another MCP server works unchanged.
//!
//! Every label value is one of a fixed set (a known method, a registered tool, a known
//! revision, an error code): a series is keyed by small indices, made on its first use.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use ::metrics::{Histogram, Key, Label, Recorder};
use metrics_exporter_prometheus::PrometheusRecorder;

pub(crate) use crate::request::Transport;

use super::METADATA;
use super::names::{OPERATION, SESSION};
use crate::outcome::Failure;
use crate::request::Operation;

/// The methods named in `mcp_method_name`; any other is `_OTHER`.
const METHODS: [&str; 21] = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "subscriptions/listen",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tasks/cancel",
    "tasks/update",
    "notifications/initialized",
];

/// The revisions named in `mcp_protocol_version`; another (or none known) is left out.
const VERSIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// The JSON-RPC error codes named in `error_type`; any other is `_OTHER`.
const CODES: [i32; 7] = [-32700, -32600, -32601, -32602, -32603, -32002, -32042];

impl Failure {
    fn index(self) -> u8 {
        match self {
            Failure::None => 0,
            Failure::Tool => 1,
            Failure::Code(code) => CODES
                .iter()
                .position(|known| *known == code)
                .map_or(2 + CODES.len() as u8, |i| 2 + i as u8),
        }
    }

    fn label(index: u8) -> Option<String> {
        match index {
            0 => None,
            1 => Some("tool_error".to_owned()),
            i => Some(
                CODES
                    .get(usize::from(i - 2))
                    .map_or_else(|| "_OTHER".to_owned(), |code| code.to_string()),
            ),
        }
    }
}

/// The key of an operation's series: indices into the fixed sets.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Series {
    method: u8,
    transport: Transport,
    version: u8,
    failure: u8,
}

/// How many values each index of a [`Series`] takes.
const TRANSPORTS: usize = 2;
const VERSION_SLOTS: usize = VERSIONS.len() + 1;
const FAILURE_SLOTS: usize = 3 + CODES.len();

/// Operation histograms, each made on its first use in a slot of its own, found by index: a
/// request pays no lock and no hash (a lock that every call takes would bounce between the
/// runtime's threads). The server's hold every method but `tools/call`; a tool's, its calls.
pub(super) struct Operations {
    /// How many methods the slots are for: one (a tool's calls) or every method.
    methods: usize,
    slots: OnceLock<Box<[OnceLock<Histogram>]>>,
}

/// The session histograms of one server, made on first use.
#[derive(Default)]
pub(super) struct Sessions {
    made: RwLock<HashMap<(Transport, u8), Histogram, foldhash::fast::RandomState>>,
}

fn method_index(method: &str) -> u8 {
    METHODS
        .iter()
        .position(|known| *known == method)
        .map_or(METHODS.len() as u8, |i| i as u8)
}

fn version_index(version: Option<&str>) -> u8 {
    version
        .and_then(|version| VERSIONS.iter().position(|known| *known == version))
        .map_or(VERSIONS.len() as u8, |i| i as u8)
}

impl Operations {
    /// The slots of one tool's calls.
    pub(super) fn of_a_tool() -> Operations {
        Operations {
            methods: 1,
            slots: OnceLock::new(),
        }
    }

    /// The slots of every method.
    pub(super) fn of_every_method() -> Operations {
        Operations {
            methods: METHODS.len() + 1,
            slots: OnceLock::new(),
        }
    }

    fn slot(&self, series: &Series) -> &OnceLock<Histogram> {
        let size = self.methods * TRANSPORTS * VERSION_SLOTS * FAILURE_SLOTS;
        let slots = self
            .slots
            .get_or_init(|| (0..size).map(|_| OnceLock::new()).collect());
        let method = if self.methods == 1 {
            0
        } else {
            usize::from(series.method)
        };
        let transport = match series.transport {
            Transport::Pipe => 0,
            Transport::Tcp => 1,
        };
        let index = ((method * TRANSPORTS + transport) * VERSION_SLOTS
            + usize::from(series.version))
            * FAILURE_SLOTS
            + usize::from(series.failure);
        &slots[index]
    }

    /// `op` took `seconds`; `tool` is the registered name of the tool a `tools/call` called
    /// (these are its operations).
    pub(super) fn record(
        &self,
        recorder: &PrometheusRecorder,
        op: Operation<'_>,
        tool: Option<&str>,
        seconds: f64,
    ) {
        let series = Series {
            method: method_index(op.method),
            transport: op.transport,
            version: version_index(op.version),
            failure: op.failure.index(),
        };
        self.slot(&series)
            .get_or_init(|| register(recorder, &series, tool))
            .record(seconds);
    }
}

impl Sessions {
    /// A session over `transport` at `version` lasted `seconds`.
    pub(super) fn record(
        &self,
        recorder: &PrometheusRecorder,
        transport: Transport,
        version: Option<&str>,
        seconds: f64,
    ) {
        let key = (transport, version_index(version));
        if let Some(histogram) = read(&self.made).get(&key) {
            histogram.record(seconds);
            return;
        }
        let mut labels = vec![Label::new("network_transport", transport.as_str())];
        if let Some(version) = VERSIONS.get(usize::from(key.1)) {
            labels.push(Label::new("mcp_protocol_version", *version));
        }
        let histogram = recorder.register_histogram(&Key::from_parts(SESSION, labels), &METADATA);
        histogram.record(seconds);
        write(&self.made).entry(key).or_insert(histogram);
    }
}

fn register(recorder: &PrometheusRecorder, series: &Series, tool: Option<&str>) -> Histogram {
    let method = METHODS
        .get(usize::from(series.method))
        .copied()
        .unwrap_or("_OTHER");
    let mut labels = vec![
        Label::new("mcp_method_name", method),
        Label::new("network_transport", series.transport.as_str()),
    ];
    if let Some(tool) = tool {
        labels.push(Label::new("gen_ai_tool_name", tool.to_owned()));
    }
    if let Some(version) = VERSIONS.get(usize::from(series.version)) {
        labels.push(Label::new("mcp_protocol_version", *version));
    }
    if let Some(failure) = Failure::label(series.failure) {
        labels.push(Label::new("error_type", failure));
    }
    recorder.register_histogram(&Key::from_parts(OPERATION, labels), &METADATA)
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_series_has_a_slot_of_its_own() {
        let every = Operations::of_every_method();
        let mut seen = std::collections::HashSet::new();
        for method in 0..=METHODS.len() as u8 {
            for transport in [Transport::Pipe, Transport::Tcp] {
                for version in 0..=VERSIONS.len() as u8 {
                    for failure in 0..FAILURE_SLOTS as u8 {
                        let series = Series {
                            method,
                            transport,
                            version,
                            failure,
                        };
                        let slot: *const _ = every.slot(&series);
                        assert!(seen.insert(slot), "two series share a slot");
                    }
                }
            }
        }
        assert_eq!(Failure::Code(-1).index() as usize, FAILURE_SLOTS - 1);
        let tool = Operations::of_a_tool();
        let series = Series {
            method: 3,
            transport: Transport::Tcp,
            version: 5,
            failure: 9,
        };
        let _ = tool.slot(&series); // the last slot of a tool's
    }

    #[test]
    fn every_label_value_comes_from_a_fixed_set() {
        assert_eq!(method_index("tools/call"), 3);
        assert_eq!(method_index("made/up"), METHODS.len() as u8);
        assert_eq!(version_index(Some("2026-07-28")), 4);
        assert_eq!(version_index(Some("1999-01-01")), VERSIONS.len() as u8);
        assert_eq!(Failure::label(Failure::None.index()), None);
        assert_eq!(
            Failure::label(Failure::Tool.index()).as_deref(),
            Some("tool_error")
        );
        assert_eq!(
            Failure::label(Failure::Code(-32602).index()).as_deref(),
            Some("-32602")
        );
        assert_eq!(
            Failure::label(Failure::Code(-1).index()).as_deref(),
            Some("_OTHER")
        );
    }
}
