//! INTERIM: the operator's scope rules (replaced by the shared caller matcher's version).

use crate::context::Caller;

/// Only callers matching one of its entries may be granted its scope.
///
/// ```
/// let rule = toolsmith::signin::ScopeRule::parse("tools:destructive=group:admins").unwrap();
/// assert_eq!(rule.scope(), "tools:destructive");
/// ```
#[derive(Debug, Clone)]
pub struct ScopeRule {
    scope: String,
    whos: Vec<String>,
}

impl ScopeRule {
    /// `SCOPE=WHO,...`.
    ///
    /// ```
    /// assert!(toolsmith::signin::ScopeRule::parse("nonsense").is_err());
    /// ```
    pub fn parse(spec: &str) -> Result<ScopeRule, String> {
        let (scope, whos) = spec
            .split_once('=')
            .ok_or("a scope rule is SCOPE=WHO,...")?;
        Ok(ScopeRule {
            scope: scope.trim().to_owned(),
            whos: whos.split(',').map(|w| w.trim().to_owned()).collect(),
        })
    }

    /// The scope it restricts.
    ///
    /// ```
    /// assert_eq!(toolsmith::signin::ScopeRule::parse("a=group:b").unwrap().scope(), "a");
    /// ```
    pub fn scope(&self) -> &str {
        &self.scope
    }

    /// Whether `caller` may be granted the scope.
    ///
    /// ```
    /// use toolsmith::context::Caller;
    /// let rule = toolsmith::signin::ScopeRule::parse("a=group:b").unwrap();
    /// assert!(!rule.allows(&Caller::new("x", ["a"])));
    /// ```
    pub fn allows(&self, caller: &Caller) -> bool {
        let groups: Vec<&str> = match caller.claim("groups") {
            Some(serde_json::Value::Array(list)) => {
                list.iter().filter_map(|v| v.as_str()).collect()
            }
            _ => Vec::new(),
        };
        self.whos.iter().any(|who| match who.split_once(':') {
            Some(("group", g)) => groups.contains(&g),
            Some(("subject", s)) => caller.subject() == Some(s),
            _ => false,
        })
    }
}

/// `scopes` without those a rule keeps from `caller`.
pub(crate) fn restricted(rules: &[ScopeRule], caller: &Caller, scopes: Vec<String>) -> Vec<String> {
    scopes
        .into_iter()
        .filter(|s| {
            rules
                .iter()
                .filter(|r| &r.scope == s)
                .all(|r| r.allows(caller))
        })
        .collect()
}
