//! [`ScopeRule`]: an operator's restriction of a scope to some signed-in callers
//! (`--signin-restrict SCOPE=WHO[,WHO...]`).

use std::str::FromStr;

use crate::context::{Caller, Who};

/// Only callers who match one of its WHOs may be granted its scope: `--signin-restrict
/// tools:destructive=email:*@example.com,group:admins` (repeatable). A WHO is
///
/// - `email:LOCAL@DOMAIN`: the caller's verified email ([`Caller::email`]), LOCAL and DOMAIN
///   by glob (`*`, `?`, `[a-z]`), DOMAIN without regard to case;
/// - `group:NAME`: a group of the caller's `groups` claim ([`Caller::groups`]), exactly;
/// - `issuer:URL`: the provider that vouched for the caller ([`Caller::issuer`]), exactly;
/// - `subject:PATTERN`: the caller's subject ([`Caller::subject`]) by glob.
///
/// A scope that no rule names is granted as asked; one that several rules name, to a caller
/// who matches a WHO of any of them.
///
/// ```
/// use toolsmith::{context::Caller, signin::ScopeRule};
///
/// let rule = ScopeRule::parse("tools:destructive=email:*@example.com,group:admins").unwrap();
/// assert_eq!(rule.scope(), "tools:destructive");
/// let with = |claims: serde_json::Value| {
///     Caller::new("u1", ["tools:read"]).with_claims(claims.as_object().unwrap().clone())
/// };
/// assert!(rule.allows(&with(serde_json::json!({"email": "ann@Example.com", "email_verified": true}))));
/// assert!(rule.allows(&with(serde_json::json!({"email": "x@other.org", "groups": ["admins"]}))));
/// assert!(!rule.allows(&with(serde_json::json!({"email": "ann@example.com", "email_verified": false}))));
/// assert!(!rule.allows(&with(serde_json::json!({"email": "ann@example.com.evil.org"}))));
/// assert!(!rule.allows(&Caller::anonymous()));
///
/// let err = ScopeRule::parse("tools:destructive=role:admin").unwrap_err();
/// assert!(err.contains("no kind `role:`"), "{err}");
/// ```
#[derive(Clone, Debug)]
pub struct ScopeRule {
    scope: String,
    whos: Vec<Who>,
}

/// How a rule is written, for the errors.
const FORM: &str = "give SCOPE=WHO[,WHO...], e.g. tools:destructive=email:*@example.com";

impl ScopeRule {
    /// Reads `SCOPE=WHO[,WHO...]` (spaces around each part are ignored). An error says what
    /// is wrong: no `=`, an empty scope or one with a space, an empty list or entry, a WHO of
    /// no known kind, a pattern that is not a glob.
    ///
    /// ```
    /// use toolsmith::signin::ScopeRule;
    ///
    /// let rule = ScopeRule::parse("tools:write = group:editors, subject:svc-*").unwrap();
    /// assert_eq!(rule.scope(), "tools:write");
    /// let err = |text| ScopeRule::parse(text).unwrap_err();
    /// assert!(err("tools:write").contains("no `=`"));
    /// assert!(err("=group:a").contains("scope is empty"));
    /// assert!(err("tools write=group:a").contains("one word"));
    /// assert!(err("tools:write=").contains("no WHO"));
    /// assert!(err("tools:write=group:a,,group:b").contains("empty WHO"));
    /// assert!(err("tools:write=alice").contains("names no kind"));
    /// assert!(err("tools:write=email:example.com").contains("LOCAL@DOMAIN"));
    /// ```
    pub fn parse(text: &str) -> Result<ScopeRule, String> {
        let Some((scope, whos)) = text.split_once('=') else {
            return Err(format!("{text:?} has no `=`: {FORM}"));
        };
        if whos.trim().is_empty() {
            return Err(format!("{text:?} names no WHO after `=`: {FORM}"));
        }
        ScopeRule::new(scope, whos.split(',')).map_err(|why| format!("{text:?}: {why}"))
    }

    /// A rule of `scope` for these WHOs (each as [`ScopeRule::parse`] reads it).
    ///
    /// ```
    /// use toolsmith::{context::Caller, signin::ScopeRule};
    ///
    /// let rule = ScopeRule::new("tools:destructive", ["group:admins"]).unwrap();
    /// let admin = serde_json::json!({"groups": ["admins"]}).as_object().unwrap().clone();
    /// assert!(rule.allows(&Caller::new("u1", ["tools:read"]).with_claims(admin)));
    /// assert!(!rule.allows(&Caller::new("u2", ["tools:read"])));
    /// assert!(ScopeRule::new("tools:destructive", Vec::<String>::new()).is_err());
    /// ```
    pub fn new<W: AsRef<str>>(
        scope: impl Into<String>,
        whos: impl IntoIterator<Item = W>,
    ) -> Result<ScopeRule, String> {
        let scope = scope.into().trim().to_owned();
        if scope.is_empty() {
            return Err(format!("the scope is empty: {FORM}"));
        }
        if scope.chars().any(char::is_whitespace) {
            return Err(format!(
                "the scope {scope:?} has a space: a scope is one word"
            ));
        }
        let whos = whos
            .into_iter()
            .map(|who| match who.as_ref().trim() {
                "" => Err(format!("an empty WHO: {FORM}")),
                who => Who::parse(who, false),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if whos.is_empty() {
            return Err(format!("no WHO for {scope:?}: {FORM}"));
        }
        Ok(ScopeRule { scope, whos })
    }

    /// The scope this rule restricts.
    ///
    /// ```
    /// let rule = toolsmith::signin::ScopeRule::parse("tools:write=group:editors").unwrap();
    /// assert_eq!(rule.scope(), "tools:write");
    /// ```
    pub fn scope(&self) -> &str {
        &self.scope
    }

    /// Whether `caller` matches one of the rule's WHOs (the local user never does).
    ///
    /// ```
    /// use toolsmith::{context::Caller, signin::ScopeRule};
    ///
    /// let rule = ScopeRule::parse("tools:write=issuer:https://accounts.google.com").unwrap();
    /// let claims = |v: serde_json::Value| v.as_object().unwrap().clone();
    /// let google = Caller::new("1", ["tools:read"]).with_claims(claims(serde_json::json!({
    ///     "iss": "http://127.0.0.1:8123", "idp": "https://accounts.google.com",
    /// })));
    /// let github = Caller::new("1", ["tools:read"]).with_claims(claims(serde_json::json!({
    ///     "iss": "http://127.0.0.1:8123", "idp": "https://github.com",
    /// })));
    /// assert!(rule.allows(&google) && !rule.allows(&github));
    /// ```
    pub fn allows(&self, caller: &Caller) -> bool {
        self.whos.iter().any(|who| who.matches(caller))
    }
}

impl FromStr for ScopeRule {
    type Err = String;

    fn from_str(text: &str) -> Result<ScopeRule, String> {
        ScopeRule::parse(text)
    }
}

/// `scopes` without those `caller` may not be granted: each scope some rule names and
/// `caller` matches no WHO of (of any rule naming it). Scopes no rule names pass, in order.
pub(crate) fn restricted(rules: &[ScopeRule], caller: &Caller, scopes: Vec<String>) -> Vec<String> {
    scopes
        .into_iter()
        .filter(|scope| {
            let mut naming = rules.iter().filter(|rule| rule.scope == *scope).peekable();
            naming.peek().is_none() || naming.any(|rule| rule.allows(caller))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caller(sub: &str, claims: serde_json::Value) -> Caller {
        Caller::new(sub, ["tools:read"]).with_claims(claims.as_object().unwrap().clone())
    }

    fn scopes(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_restricted_scope_is_dropped_for_a_caller_no_rule_allows() {
        let rules = [
            ScopeRule::parse("tools:destructive=email:*@example.com").unwrap(),
            ScopeRule::parse("tools:destructive=group:admins").unwrap(),
            ScopeRule::parse("tools:write=group:editors,group:admins").unwrap(),
        ];
        let asked = scopes(&["tools:read", "tools:write", "tools:destructive"]);
        let ann = caller(
            "1",
            json!({"email": "ann@example.com", "groups": ["editors"]}),
        );
        assert_eq!(
            restricted(&rules, &ann, asked.clone()),
            scopes(&["tools:read", "tools:write", "tools:destructive"])
        );
        let admin = caller(
            "2",
            json!({"email": "root@other.org", "groups": ["admins"]}),
        );
        assert_eq!(restricted(&rules, &admin, asked.clone()), asked);
        let guest = caller(
            "3",
            json!({"email": "guest@other.org", "groups": ["guests"]}),
        );
        assert_eq!(
            restricted(&rules, &guest, asked.clone()),
            scopes(&["tools:read"])
        );
        let unverified = caller(
            "4",
            json!({"email": "ann@example.com", "email_verified": false}),
        );
        assert_eq!(
            restricted(&rules, &unverified, asked.clone()),
            scopes(&["tools:read"])
        );
        // No rule: every scope as asked.
        assert_eq!(restricted(&[], &guest, asked.clone()), asked);
    }

    #[test]
    fn a_rule_that_cannot_be_read_says_why() {
        let err = |text: &str| ScopeRule::parse(text).unwrap_err();
        assert!(err("tools:destructive").contains("no `=`"));
        assert!(err(" =email:*@example.com").contains("scope is empty"));
        assert!(err("tools\tdestructive=group:a").contains("one word"));
        assert!(err("tools:destructive= ").contains("no WHO"));
        assert!(err("tools:destructive=group:a, ").contains("empty WHO"));
        assert!(err("tools:destructive=team:a").contains("no kind `team:`"));
        assert!(err("tools:destructive=email:[@x").contains("pattern"));
        assert!(err("tools:destructive=group:").contains("give the group"));
        let rule: ScopeRule = " tools:destructive = group:a , email:*@x.org "
            .parse()
            .unwrap();
        assert_eq!(rule.scope(), "tools:destructive");
        assert!(rule.allows(&caller("1", json!({"email": "b@X.ORG"}))));
    }
}
