//! The readable report: the tools' hint matrix (as the `tools` command prints it), then the
//! findings, then a summary line.

use std::collections::HashMap;

use serde_json::Value;

use super::Report;
use super::escape::shown;

/// A hint's cell: `yes`/`no` as stated, `-` when not stated (a client then assumes the
/// specification's default).
fn cell(tool: &Value, key: &str) -> &'static str {
    match tool
        .get("annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_bool)
    {
        Some(true) => "yes",
        Some(false) => "no",
        None => "-",
    }
}

/// `rows` as text columns, two spaces apart, each as wide as its widest cell (the style of
/// every toolsmith server's `tools` matrix, which uses it too).
///
/// ```
/// let rows = vec![
///     vec!["NAME".to_owned(), "READ-ONLY".to_owned()],
///     vec!["get_note".to_owned(), "yes".to_owned()],
/// ];
/// assert_eq!(
///     toolsmith_audit::aligned(&rows),
///     "NAME      READ-ONLY\nget_note  yes\n"
/// );
/// ```
pub fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

impl Report {
    /// The report as text: the hint matrix, each finding with its fix, and a summary.
    ///
    /// ```
    /// use serde_json::json;
    /// let report = toolsmith_audit::Report::new(
    ///     toolsmith_audit::Server::named("s"),
    ///     vec![json!({"name": "get_x", "inputSchema": {"type": "object"}})],
    /// );
    /// let table = report.to_table();
    /// assert!(table.starts_with("NAME"));
    /// assert!(table.contains("error    get_x  hints-missing"));
    /// assert!(table.contains("  fix: state both"));
    /// ```
    pub fn to_table(&self) -> String {
        let mut rows = vec![
            [
                "NAME",
                "TITLE",
                "READ-ONLY",
                "DESTRUCTIVE",
                "IDEMPOTENT",
                "OPEN-WORLD",
                "FINDINGS",
            ]
            .map(str::to_owned)
            .to_vec(),
        ];
        // Each tool's findings counted once, by severity (not a scan per tool).
        let mut counts: HashMap<&str, [usize; 3]> = HashMap::new();
        for finding in self.findings.iter().filter(|f| !f.accepted) {
            if let Some(tool) = finding.tool.as_deref() {
                let at = match finding.severity() {
                    crate::Severity::Error => 0,
                    crate::Severity::Warning => 1,
                    crate::Severity::Note => 2,
                };
                counts.entry(tool).or_default()[at] += 1;
            }
        }
        for tool in &self.tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            let title = tool
                .get("title")
                .or_else(|| tool.get("annotations").and_then(|a| a.get("title")))
                .and_then(Value::as_str)
                .unwrap_or("-");
            let mine = counts.get(name).copied().unwrap_or_default();
            let count = |s| match s {
                crate::Severity::Error => mine[0],
                crate::Severity::Warning => mine[1],
                crate::Severity::Note => mine[2],
            };
            let mut summary = Vec::new();
            for (severity, letter) in [
                (crate::Severity::Error, "E"),
                (crate::Severity::Warning, "W"),
                (crate::Severity::Note, "N"),
            ] {
                if count(severity) > 0 {
                    summary.push(format!("{}{letter}", count(severity)));
                }
            }
            rows.push(vec![
                if name.is_empty() {
                    "\"\"".to_owned()
                } else {
                    shown(name).into_owned()
                },
                shown(title).into_owned(),
                cell(tool, "readOnlyHint").to_owned(),
                cell(tool, "destructiveHint").to_owned(),
                cell(tool, "idempotentHint").to_owned(),
                cell(tool, "openWorldHint").to_owned(),
                if summary.is_empty() {
                    "ok".to_owned()
                } else {
                    summary.join(" ")
                },
            ]);
        }
        let mut out = aligned(&rows);
        if !self.findings.is_empty() {
            out.push('\n');
        }
        for finding in &self.findings {
            // Everything here may quote the server: names, titles, descriptions.
            let tool = shown(finding.tool.as_deref().unwrap_or("(server)"));
            let accepted = if finding.accepted { " (accepted)" } else { "" };
            out.push_str(&format!(
                "{:<8} {tool}  {}{accepted}\n",
                finding.severity().as_str(),
                finding.rule.code
            ));
            let message = shown(&finding.message);
            match &finding.path {
                Some(path) => out.push_str(&format!("  {}: {message}\n", shown(path))),
                None => out.push_str(&format!("  {message}\n")),
            }
            out.push_str(&format!("  fix: {}\n", shown(&finding.fix)));
        }
        out.push('\n');
        out.push_str(&shown(&self.summary()));
        out.push('\n');
        out
    }
}
