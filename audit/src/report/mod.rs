//! An audit's result, and its three renderings: a table, JSON and SARIF.

use serde_json::Value;

use crate::{Baseline, FailOn, Finding, Severity};

mod escape;
mod json;
mod sarif;
mod table;

pub use escape::shown;
pub use table::aligned;

/// What the audited server says about itself.
///
/// ```
/// let server = toolsmith_audit::Server::named("notes");
/// assert_eq!(server.name, "notes");
/// assert_eq!(server.version, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Server {
    /// Its `serverInfo.name`, or the command or URL it was reached at.
    pub name: String,
    /// Its `serverInfo.version`.
    pub version: Option<String>,
    /// The protocol version negotiated.
    pub protocol_version: Option<String>,
}

impl Server {
    /// A server known by its name only.
    ///
    /// ```
    /// assert_eq!(toolsmith_audit::Server::named("x").name, "x");
    /// ```
    pub fn named(name: impl Into<String>) -> Self {
        Server {
            name: name.into(),
            ..Server::default()
        }
    }
}

/// The audit of one server's tools.
///
/// ```
/// use serde_json::json;
/// use toolsmith_audit::{FailOn, Report, Server};
///
/// let tool = json!({"name": "get_note", "title": "Get note",
///     "description": "Get one note by its id.", "inputSchema": {"type": "object"},
///     "annotations": {"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false}});
/// let report = Report::new(Server::named("notes"), vec![tool]);
/// assert!(report.findings.is_empty());
/// assert_eq!(report.exit_code(FailOn::Note), 0);
/// ```
#[derive(Debug, Clone)]
pub struct Report {
    /// The server.
    pub server: Server,
    /// Its tools, as listed (every page, in order).
    pub tools: Vec<Value>,
    /// What the audit found, errors first.
    pub findings: Vec<Finding>,
    /// Baseline entries that matched no finding (fixed since, or renamed).
    pub stale: Vec<String>,
}

impl Report {
    /// Audits `tools`.
    ///
    /// ```
    /// let report = toolsmith_audit::Report::new(toolsmith_audit::Server::named("empty"), vec![]);
    /// assert!(report.findings.is_empty());
    /// ```
    pub fn new(server: Server, tools: Vec<Value>) -> Self {
        let findings = crate::audit(&tools);
        Report {
            server,
            tools,
            findings,
            stale: Vec::new(),
        }
    }

    /// Marks the findings `baseline` lists as accepted, and records its entries that matched
    /// none.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolsmith_audit::{Baseline, Report, Server, Severity};
    ///
    /// let tools = vec![json!({"name": "x", "inputSchema": {"type": "object"}})];
    /// let mut report = Report::new(Server::named("s"), tools.clone());
    /// let baseline = Baseline::parse(&report.to_json().to_string()).unwrap();
    /// let mut again = Report::new(Server::named("s"), tools);
    /// again.apply_baseline(&baseline);
    /// assert_eq!(again.count(Severity::Note), 0);
    /// ```
    pub fn apply_baseline(&mut self, baseline: &Baseline) {
        for finding in &mut self.findings {
            finding.accepted = baseline.contains(&finding.key());
        }
        let found: std::collections::HashSet<String> =
            self.findings.iter().map(Finding::key).collect();
        self.stale = baseline
            .keys()
            .filter(|key| !found.contains(*key))
            .cloned()
            .collect();
    }

    /// Records that the listing was cut at `at` tools (`--max-tools`): the rest of the
    /// server's tools were not read, so not audited.
    ///
    /// ```
    /// let mut report = toolsmith_audit::Report::new(toolsmith_audit::Server::named("s"), vec![]);
    /// report.cut_at(10_000);
    /// assert_eq!(report.findings[0].rule.code, "listing-cut");
    /// assert!(report.findings[0].message.contains("10000"));
    /// ```
    pub fn cut_at(&mut self, at: usize) {
        self.findings.push(Finding::new(
            "listing-cut",
            None,
            format!(
                "the server listed more than {at} tools: the audit read the first {at} and stopped"
            ),
            "raise --max-tools to audit them all, or split the server",
        ));
    }

    /// How many findings of `severity` or worse are not accepted by the baseline.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolsmith_audit::{Report, Server, Severity};
    /// let report = Report::new(Server::named("s"), vec![json!({"name": "x"})]);
    /// assert!(report.count(Severity::Error) >= 2); // no input schema, no hints
    /// ```
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| !f.accepted && f.severity() >= severity)
            .count()
    }

    /// The exit status: 1 when a finding not accepted by the baseline reaches `fail_on`,
    /// else 0.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolsmith_audit::{FailOn, Report, Server};
    /// let report = Report::new(Server::named("s"), vec![json!({"name": "x"})]);
    /// assert_eq!(report.exit_code(FailOn::Error), 1);
    /// assert_eq!(report.exit_code(FailOn::Never), 0);
    /// ```
    pub fn exit_code(&self, fail_on: FailOn) -> u8 {
        match fail_on.severity() {
            Some(severity) if self.count(severity) > 0 => 1,
            _ => 0,
        }
    }

    /// One line: how many errors, warnings and notes, and how many the baseline accepted.
    ///
    /// ```
    /// let report = toolsmith_audit::Report::new(toolsmith_audit::Server::named("s"), vec![]);
    /// assert_eq!(report.summary(), "0 tools: 0 errors, 0 warnings, 0 notes");
    /// ```
    pub fn summary(&self) -> String {
        let count = |severity| {
            self.findings
                .iter()
                .filter(|f| !f.accepted && f.severity() == severity)
                .count()
        };
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let mut line = format!(
            "{}: {}, {}, {}",
            plural(self.tools.len(), "tool"),
            plural(count(Severity::Error), "error"),
            plural(count(Severity::Warning), "warning"),
            plural(count(Severity::Note), "note"),
        );
        let accepted = self.findings.iter().filter(|f| f.accepted).count();
        if accepted > 0 {
            line.push_str(&format!(" ({accepted} more accepted by the baseline)"));
        }
        line
    }
}
