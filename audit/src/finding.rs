//! What the audit reports: a [`Finding`] of a [`Rule`], each rule with a stable code, a
//! severity and the source it comes from; and from which severity on findings fail
//! ([`FailOn`]). The rules themselves are in `rules/`, which builds findings from a code.

use std::fmt;

/// How much a finding matters.
///
/// ```
/// use toolsmith_audit::Severity;
/// assert!(Severity::Error > Severity::Warning && Severity::Warning > Severity::Note);
/// assert_eq!(Severity::Warning.to_string(), "warning");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; a directory review would not reject it.
    Note,
    /// A client or a reviewer will likely mishandle the tool.
    Warning,
    /// A directory review rejects it, or clients misread the tool.
    Error,
}

impl Severity {
    /// The lowercase name, as SARIF's `level` spells it.
    ///
    /// ```
    /// assert_eq!(toolsmith_audit::Severity::Note.as_str(), "note");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// From which severity on a finding fails the audit (exit status 1).
///
/// ```
/// use toolsmith_audit::{FailOn, Severity};
/// assert_eq!(FailOn::Warning.severity(), Some(Severity::Warning));
/// assert_eq!(FailOn::Never.severity(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FailOn {
    /// Errors fail (the default).
    #[default]
    Error,
    /// Errors and warnings fail.
    Warning,
    /// Every finding fails.
    Note,
    /// Nothing fails: report only.
    Never,
}

impl FailOn {
    /// The least severity that fails, if any.
    ///
    /// ```
    /// assert_eq!(toolsmith_audit::FailOn::Error.severity(), Some(toolsmith_audit::Severity::Error));
    /// ```
    pub fn severity(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Note => Some(Severity::Note),
            FailOn::Never => None,
        }
    }
}

/// One rule of the audit.
///
/// ```
/// let rule = toolsmith_audit::rule("hints-missing").unwrap();
/// assert_eq!(rule.severity, toolsmith_audit::Severity::Error);
/// ```
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// The stable code, e.g. `verb-destructive`: baselines and SARIF refer to it.
    pub code: &'static str,
    /// How much a finding of this rule matters.
    pub severity: Severity,
    /// What the rule checks, in one line.
    pub summary: &'static str,
    /// Where the rule comes from (the specification, a directory's review, a client).
    pub source: &'static str,
}

/// One thing the audit found.
///
/// ```
/// use serde_json::json;
/// let findings = toolsmith_audit::audit(&[json!({"name": "get_note", "inputSchema": {"type": "object"}})]);
/// let missing = findings.iter().find(|f| f.rule.code == "hints-missing").unwrap();
/// assert_eq!(missing.tool.as_deref(), Some("get_note"));
/// assert!(missing.fix.starts_with("state "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule it breaks.
    pub rule: &'static Rule,
    /// The tool, or `None` for a finding about the whole server.
    pub tool: Option<String>,
    /// Where in the tool, e.g. `inputSchema.properties.path`, when narrower than the tool.
    pub path: Option<String>,
    /// What is wrong.
    pub message: String,
    /// One line saying the fix.
    pub fix: String,
    /// Accepted by a baseline: reported, but it fails nothing.
    pub accepted: bool,
}

impl Finding {
    pub(crate) fn at(mut self, path: String) -> Self {
        self.path = Some(path);
        self
    }

    /// The finding's severity (its rule's).
    ///
    /// ```
    /// use serde_json::json;
    /// let findings = toolsmith_audit::audit(&[json!({"name": "bad name", "inputSchema": {"type": "object"}})]);
    /// assert!(findings.iter().any(|f| f.severity() == toolsmith_audit::Severity::Error));
    /// ```
    pub fn severity(&self) -> Severity {
        self.rule.severity
    }

    /// What identifies the finding across runs (a baseline's key): code, tool and path.
    ///
    /// ```
    /// use serde_json::json;
    /// let findings = toolsmith_audit::audit(&[json!({"name": "x", "inputSchema": {}})]);
    /// let key = findings.iter().find(|f| f.rule.code == "input-schema-not-object").unwrap().key();
    /// assert_eq!(key, "input-schema-not-object x inputSchema");
    /// ```
    pub fn key(&self) -> String {
        let mut key = format!("{} {}", self.rule.code, self.tool.as_deref().unwrap_or("*"));
        if let Some(path) = &self.path {
            key.push(' ');
            key.push_str(path);
        }
        key
    }
}
