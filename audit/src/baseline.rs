//! Known findings (`--baseline FILE`): the `--json` report of an earlier run, so that the
//! audit can gate CI from today on and fail only on what is new.

use serde_json::Value;

/// The findings a baseline accepts, by key (code, tool and path; not the wording).
///
/// ```
/// let baseline = toolsmith_audit::Baseline::parse(
///     r#"{"findings": [{"code": "title-missing", "tool": "get_x", "path": null}]}"#,
/// ).unwrap();
/// assert!(baseline.contains("title-missing get_x"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    keys: Vec<String>,
    /// The same keys, to look up (a baseline of thousands of findings stays linear).
    set: std::collections::HashSet<String>,
}

impl Baseline {
    /// Reads a baseline: a `--json` report (its `findings`), or a JSON array of findings.
    ///
    /// ```
    /// assert!(toolsmith_audit::Baseline::parse("[]").is_ok());
    /// let err = toolsmith_audit::Baseline::parse("{}").unwrap_err();
    /// assert!(err.contains("--json"));
    /// ```
    pub fn parse(text: &str) -> Result<Self, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|err| format!("is not JSON ({err}); {HOW}"))?;
        let findings = match &value {
            Value::Array(findings) => findings,
            Value::Object(report) => match report.get("findings") {
                Some(Value::Array(findings)) => findings,
                _ => return Err(format!("has no `findings` array; {HOW}")),
            },
            _ => return Err(format!("is neither a report nor a list of findings; {HOW}")),
        };
        let mut keys = Vec::new();
        for (i, finding) in findings.iter().enumerate() {
            let text = |key: &str| finding.get(key).and_then(Value::as_str);
            let Some(code) = text("code") else {
                return Err(format!("finding {} has no `code`; {HOW}", i + 1));
            };
            let mut key = format!("{code} {}", text("tool").unwrap_or("*"));
            if let Some(path) = text("path") {
                key.push(' ');
                key.push_str(path);
            }
            keys.push(key);
        }
        let set = keys.iter().cloned().collect();
        Ok(Baseline { keys, set })
    }

    /// Reads a baseline file.
    ///
    /// ```
    /// let err = toolsmith_audit::Baseline::read("/nonexistent/baseline.json".as_ref()).unwrap_err();
    /// assert!(err.starts_with("cannot read the baseline /nonexistent/baseline.json"));
    /// ```
    pub fn read(path: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| format!("cannot read the baseline {}: {err}; {HOW}", path.display()))?;
        Baseline::parse(&text).map_err(|err| format!("the baseline {} {err}", path.display()))
    }

    /// Whether the finding with this [`key`](crate::Finding::key) is accepted.
    ///
    /// ```
    /// assert!(!toolsmith_audit::Baseline::default().contains("hints-missing x"));
    /// ```
    pub fn contains(&self, key: &str) -> bool {
        self.set.contains(key)
    }

    /// Every accepted key.
    ///
    /// ```
    /// assert_eq!(toolsmith_audit::Baseline::default().keys().count(), 0);
    /// ```
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.keys.iter()
    }
}

const HOW: &str = "write one with `audit --json ... > FILE`";
