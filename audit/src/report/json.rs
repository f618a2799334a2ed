//! The report as JSON (`--json`); also what `--baseline` reads.

use serde_json::{Value, json};

use super::Report;

impl Report {
    /// The report as JSON: the server, its tools' hints, every finding and the summary.
    ///
    /// ```
    /// use serde_json::json;
    /// let report = toolsmith_audit::Report::new(
    ///     toolsmith_audit::Server::named("s"),
    ///     vec![json!({"name": "get_x", "inputSchema": {"type": "object"}})],
    /// );
    /// let value = report.to_json();
    /// assert_eq!(value["findings"][0]["code"], "hints-missing");
    /// assert_eq!(value["findings"][0]["severity"], "error");
    /// assert_eq!(value["summary"]["errors"], 2); // and no description
    /// ```
    pub fn to_json(&self) -> Value {
        let tools: Vec<Value> = self
            .tools
            .iter()
            .map(|tool| {
                let hints = tool.get("annotations");
                let hint = |key: &str| {
                    hints
                        .and_then(|h| h.get(key))
                        .cloned()
                        .unwrap_or(Value::Null)
                };
                json!({
                    "name": tool.get("name").cloned().unwrap_or(Value::Null),
                    "title": tool.get("title").cloned().unwrap_or(Value::Null),
                    "readOnlyHint": hint("readOnlyHint"),
                    "destructiveHint": hint("destructiveHint"),
                    "idempotentHint": hint("idempotentHint"),
                    "openWorldHint": hint("openWorldHint"),
                })
            })
            .collect();
        let findings: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                json!({
                    "code": f.rule.code,
                    "severity": f.severity().as_str(),
                    "tool": f.tool,
                    "path": f.path,
                    "message": f.message,
                    "fix": f.fix,
                    "accepted": f.accepted,
                })
            })
            .collect();
        let count = |severity| {
            self.findings
                .iter()
                .filter(|f| !f.accepted && f.severity() == severity)
                .count()
        };
        json!({
            "server": {
                "name": self.server.name,
                "version": self.server.version,
                "protocolVersion": self.server.protocol_version,
            },
            "tools": tools,
            "findings": findings,
            "summary": {
                "errors": count(crate::Severity::Error),
                "warnings": count(crate::Severity::Warning),
                "notes": count(crate::Severity::Note),
                "accepted": self.findings.iter().filter(|f| f.accepted).count(),
            },
        })
    }
}
