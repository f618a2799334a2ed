//! The metrics' names, and the `# HELP` line of each.

use ::metrics::{KeyName, Recorder, Unit};
use metrics_exporter_prometheus::PrometheusRecorder;

pub(super) const CALLS: &str = "toolsmith_tool_calls_total";
pub(super) const IN_FLIGHT: &str = "toolsmith_tool_calls_in_flight";
pub(super) const HTTP_REQUESTS: &str = "toolsmith_http_requests_total";
pub(super) const AUTH_REFUSALS: &str = "toolsmith_auth_refusals_total";
pub(super) const ASKED: &str = "toolsmith_confirmations_asked_total";
pub(super) const ANSWERED: &str = "toolsmith_confirmations_answered_total";
pub(super) const APPROVALS: &str = "toolsmith_approvals_total";
pub(super) const CONNECTIONS: &str = "toolsmith_http_connections_open";
pub(super) const SESSIONS: &str = "toolsmith_sessions_open";
/// OpenTelemetry's `mcp.server.operation.duration`, as Prometheus names it.
pub(super) const OPERATION: &str = "mcp_server_operation_duration_seconds";
/// OpenTelemetry's `mcp.server.session.duration`, as Prometheus names it.
pub(super) const SESSION: &str = "mcp_server_session_duration_seconds";

/// Whether the server records a metric named `name` (a program's own series may not): one
/// of [`HELP`]'s, or any `mcp_server_*` (OpenTelemetry's names for the server side).
pub(super) fn is_servers(name: &str) -> bool {
    name.starts_with("mcp_server_") || HELP.iter().any(|(named, ..)| *named == name)
}

/// Every metric the server records: its name, unit and `# HELP` line.
const HELP: [(&str, Option<Unit>, &str); 11] = [
    (
        OPERATION,
        Some(Unit::Seconds),
        "MCP request duration as observed on the receiver from the time it was received until the result or ack is sent.",
    ),
    (
        SESSION,
        Some(Unit::Seconds),
        "The duration of the MCP session as observed on the MCP server.",
    ),
    (CALLS, None, "Tool calls, by tool and outcome."),
    (IN_FLIGHT, None, "Tool calls running now."),
    (
        HTTP_REQUESTS,
        None,
        "HTTP requests answered, by status code.",
    ),
    (
        AUTH_REFUSALS,
        None,
        "Requests refused by authorization, by reason (no_token, invalid_token, insufficient_scope).",
    ),
    (ASKED, None, "Confirmations asked of the user."),
    (
        ANSWERED,
        None,
        "Confirmations answered, by answer (accepted, declined).",
    ),
    (
        APPROVALS,
        None,
        "Confirmations decided, by who decided (client, grant, rules, webhook, page, or an approver's own name) and decision (approved, denied).",
    ),
    (CONNECTIONS, None, "HTTP connections open now."),
    (
        SESSIONS,
        None,
        "MCP sessions open now (HTTP with sessions, the default).",
    ),
];

/// The `# HELP` line of every metric.
pub(super) fn describe(recorder: &PrometheusRecorder) {
    for (name, unit, text) in HELP {
        let name = KeyName::from_const_str(name);
        match name.as_str() {
            OPERATION | SESSION => recorder.describe_histogram(name, unit, text.into()),
            IN_FLIGHT | CONNECTIONS | SESSIONS => recorder.describe_gauge(name, unit, text.into()),
            _ => recorder.describe_counter(name, unit, text.into()),
        }
    }
}
