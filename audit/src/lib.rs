//! The rules of `toolsmith audit`: what a directory review of an MCP server's tools would
//! reject, judged from the `tools/list` JSON alone (nothing is called).
//!
//! Each [`Finding`] has a stable code (its [`Rule`]), a [`Severity`] and one line saying the
//! fix. [`Report`] renders them as a table, JSON or SARIF 2.1.0, and [`Options`] are the
//! command-line flags shared by the `toolsmith` binary (any server, as a client) and every
//! toolsmith server's own `audit` command (in-process).
//!
//! ```
//! use serde_json::json;
//! use toolsmith_audit::{Report, Server, Severity};
//!
//! let tools = vec![json!({
//!     "name": "delete_note",
//!     "description": "Delete a note.",
//!     "inputSchema": {"type": "object"},
//!     "annotations": {"readOnlyHint": true},
//! })];
//! let report = Report::new(Server::named("notes"), tools);
//! assert!(report.findings.iter().any(|f| f.rule.code == "verb-destructive"));
//! assert!(report.count(Severity::Error) > 0);
//! ```

mod baseline;
mod finding;
mod options;
mod report;
mod rules;

pub use baseline::Baseline;
pub use finding::{FailOn, Finding, Rule, Severity};
pub use options::Options;
pub use report::{Report, Server, aligned, shown};
pub use rules::{RULES, audit, rule};

/// The `format` values JSON Schema 2020-12 defines; a schema that is to be portable uses no
/// other (validators such as Ajv warn about `int32`, `uint64`, `double` and the like).
///
/// ```
/// assert!(toolsmith_audit::STANDARD_FORMATS.contains(&"date-time"));
/// assert!(!toolsmith_audit::STANDARD_FORMATS.contains(&"int64"));
/// ```
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];
