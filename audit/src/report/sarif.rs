//! The report as SARIF 2.1.0 (`--sarif`), for GitHub code scanning and other SARIF viewers.

use serde_json::{Value, json};

use super::Report;
use crate::RULES;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

impl Report {
    /// The report as a SARIF 2.1.0 log: one run, every rule, one result per finding (a
    /// finding accepted by the baseline carries an external suppression). Each result is
    /// located at the tool (a logical location) and, when `artifact` is given, at that file
    /// (GitHub code scanning shows only results located in a file of the repository: name the
    /// server's entry point or its configuration).
    ///
    /// ```
    /// use serde_json::json;
    /// let report = toolsmith_audit::Report::new(
    ///     toolsmith_audit::Server::named("s"),
    ///     vec![json!({"name": "get_x", "inputSchema": {"type": "object"}})],
    /// );
    /// let log = report.to_sarif(Some("server.py"));
    /// assert_eq!(log["version"], "2.1.0");
    /// let result = &log["runs"][0]["results"][0];
    /// assert_eq!(result["ruleId"], "hints-missing");
    /// assert_eq!(result["level"], "error");
    /// assert_eq!(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "server.py");
    /// ```
    pub fn to_sarif(&self, artifact: Option<&str>) -> Value {
        let rules: Vec<Value> = RULES
            .iter()
            .map(|rule| {
                json!({
                    "id": rule.code,
                    "shortDescription": {"text": rule.summary},
                    "fullDescription": {"text": format!("{} Source: {}.", rule.summary, rule.source)},
                    "defaultConfiguration": {"level": rule.severity.as_str()},
                })
            })
            .collect();
        let results: Vec<Value> = self
            .findings
            .iter()
            .map(|finding| {
                let index = RULES.iter().position(|r| r.code == finding.rule.code);
                let tool = finding.tool.as_deref();
                let mut location = serde_json::Map::new();
                let name = tool.unwrap_or(&self.server.name);
                let qualified = match (tool, &finding.path) {
                    (Some(tool), Some(path)) => format!("{}/{tool}/{path}", self.server.name),
                    (Some(tool), None) => format!("{}/{tool}", self.server.name),
                    (None, _) => self.server.name.clone(),
                };
                location.insert(
                    "logicalLocations".into(),
                    json!([{
                        "name": name,
                        "fullyQualifiedName": qualified,
                        "kind": if tool.is_some() { "function" } else { "module" },
                    }]),
                );
                if let Some(uri) = artifact {
                    location.insert(
                        "physicalLocation".into(),
                        json!({"artifactLocation": {"uri": uri}, "region": {"startLine": 1}}),
                    );
                }
                let subject = match tool {
                    Some(tool) => format!("Tool `{tool}`"),
                    None => format!("Server `{}`", self.server.name),
                };
                let mut result = json!({
                    "ruleId": finding.rule.code,
                    "ruleIndex": index,
                    "level": finding.severity().as_str(),
                    "message": {"text": format!("{subject}: {}. Fix: {}.", finding.message, finding.fix)},
                    "locations": [Value::Object(location)],
                    "partialFingerprints": {"toolsmithAudit/v1": finding.key()},
                });
                if finding.accepted {
                    result["suppressions"] = json!([{"kind": "external", "justification": "accepted by the audit baseline"}]);
                }
                result
            })
            .collect();
        json!({
            "$schema": SCHEMA,
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "toolsmith audit",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://crates.io/crates/toolsmith-cli",
                    "rules": rules,
                }},
                "results": results,
            }],
        })
    }
}
