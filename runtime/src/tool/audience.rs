//! Who may see and call a tool ([`Audience`]): a per-caller view. A tool with an audience is
//! listed, found by search mode and callable only for a caller it admits; to anyone else it
//! does not exist (a call is answered as for an unknown tool). Scopes are the other half of a
//! caller's view: a tool whose scope a token lacks is not listed for it either.

use serde::Deserialize;
use serde_json::Value;

use crate::context::Caller;

/// The callers a tool is for: every condition given must hold (none given admits everyone).
/// Read from the caller's token: its `groups` claim, its `email` claim, any claim by name.
///
/// ```
/// use toolsmith::context::Caller;
/// use toolsmith::tool::Audience;
///
/// let hr = Audience::new().group("hr").email_domain("example.com");
/// let claims = serde_json::json!({"groups": ["hr"], "email": "ada@example.com"});
/// let ada = Caller::new("ada", ["tools:read"]).with_claims(claims.as_object().unwrap().clone());
/// assert!(hr.admits(&ada));
/// let claims = serde_json::json!({"groups": ["hr"], "email": "eve@elsewhere.test"});
/// let eve = Caller::new("eve", ["tools:read"]).with_claims(claims.as_object().unwrap().clone());
/// assert!(!hr.admits(&eve), "not of the domain");
/// assert!(!hr.admits(&Caller::anonymous()), "no token, no groups");
/// let by_claim = Audience::new().claim("dept", "finance");
/// let claims = serde_json::json!({"dept": ["finance", "ops"]});
/// let bob = Caller::new("bob", ["tools:read"]).with_claims(claims.as_object().unwrap().clone());
/// assert!(by_claim.admits(&bob), "a claim holding the value, or a list of it");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Audience {
    /// The caller belongs to one of these groups (its `groups` claim).
    #[serde(default)]
    pub groups: Vec<String>,
    /// The caller's `email` is at one of these domains.
    #[serde(default)]
    pub email_domains: Vec<String>,
    /// Each claim holds its value (a string claim equal to it, or an array holding it).
    #[serde(default)]
    pub claims: std::collections::BTreeMap<String, String>,
}

impl Audience {
    /// An audience of everyone, until conditions are added.
    pub fn new() -> Audience {
        Audience::default()
    }

    /// Only callers of `group` (or of another group given).
    pub fn group(mut self, group: impl Into<String>) -> Audience {
        self.groups.push(group.into());
        self
    }

    /// Only callers whose email is at `domain` (or at another domain given).
    pub fn email_domain(mut self, domain: impl Into<String>) -> Audience {
        self.email_domains.push(domain.into());
        self
    }

    /// Only callers whose claim `name` holds `value`.
    pub fn claim(mut self, name: impl Into<String>, value: impl Into<String>) -> Audience {
        self.claims.insert(name.into(), value.into());
        self
    }

    /// Whether it admits `caller`.
    pub fn admits(&self, caller: &Caller) -> bool {
        let groups = caller.groups();
        let in_group =
            self.groups.is_empty() || self.groups.iter().any(|g| groups.contains(&g.as_str()));
        let at_domain = self.email_domains.is_empty()
            || caller.email().is_some_and(|email| {
                let domain = email.rsplit_once('@').map_or("", |(_, domain)| domain);
                self.email_domains
                    .iter()
                    .any(|wanted| domain.eq_ignore_ascii_case(wanted))
            });
        let claims = self
            .claims
            .iter()
            .all(|(name, wanted)| match caller.claim(name) {
                Some(Value::String(value)) => value == wanted,
                Some(Value::Array(values)) => values.iter().any(|v| v.as_str() == Some(wanted)),
                _ => false,
            });
        in_group && at_domain && claims
    }

    /// Whether it admits everyone (no condition).
    pub fn is_everyone(&self) -> bool {
        self.groups.is_empty() && self.email_domains.is_empty() && self.claims.is_empty()
    }
}
