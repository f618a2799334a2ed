//! Approval rules from a file: allow or deny a confirmation by tool, tag, hint class, caller
//! and argument patterns, without asking anyone.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use rmcp::model::JsonObject;

use super::{Approval, Approver, Deciding, Decision, Remember};
use crate::context::Who;
use crate::tool::canonical;

/// Rules that decide confirmations in order: the first rule whose every stated condition
/// holds decides (`allow`, `deny`, or `ask`: the next approver, then the user, decides); when
/// none holds, the next approver decides. `serve --approve rules=FILE` reads them.
///
/// A condition is a list of glob patterns (`*`, `?`, `[a-z]`), one of which must match:
/// `tools` the tool's name, `tags` one of its tags, `callers` who calls: a pattern of the
/// subject (`sub`) of the caller's token (`""` for a token without one; `subject:PATTERN`
/// says the same, for a subject that starts like another kind), `email:LOCAL@DOMAIN` its
/// verified email ([`Caller::email`](crate::context::Caller::email); the domain without
/// regard to case: `email:*@example.com`), `group:NAME` one of its `groups`, exactly,
/// `issuer:URL` the provider that vouched for it
/// ([`Caller::issuer`](crate::context::Caller::issuer)), exactly, or exactly `anonymous` for
/// the local user (no token: stdio, HTTP without authorization; a token whose subject is the
/// word "anonymous" is not the local user, nor is the local user matched by any other
/// entry), `arguments` an argument's text (a string as it is; anything else as canonical JSON, a
/// number without a fraction as its integer: `1.0` and `1e0` are `1`, as the tool reads
/// them; a missing argument matches nothing); `hints` is the tool's class by its hints:
/// `write` (not read-only), `destructive` or `additive` (a write that does not destroy).
///
/// An `allow` rule may be remembered: `remember_secs = N` for N seconds, `remember =
/// "session"` for the caller's session. What is remembered is the caller's calls of the tool
/// with the same values of the arguments the rule names (`arguments = { folder = "tmp/*" }`
/// remembers the folder of the call it allowed, `tmp/build`, not every folder), or every call
/// of the tool when the rule names none. A `deny` rule that matches a call refuses it before
/// any remembered approval is looked at.
///
/// ```
/// use toolsmith::approve::{Approval, Approver, Decision, Rules};
/// use toolsmith::{context::Caller, Hints};
///
/// let rules = Rules::from_toml(r#"
///     [[rule]]
///     tools = ["delete_*"]
///     callers = ["anonymous"]
///     decision = "deny"
///     reason = "sign in to delete"
///
///     [[rule]]
///     callers = ["nightly-job"]
///     hints = "destructive"
///     arguments = { folder = "tmp/*" }
///     decision = "allow"
///     remember_secs = 3600
/// "#).unwrap();
///
/// let delete = Approval::new("delete_file", Hints::DESTRUCTIVE);
/// assert_eq!(rules.decision(&delete), Decision::deny("sign in to delete"));
/// let args = serde_json::json!({"folder": "tmp/build"}).as_object().unwrap().clone();
/// let nightly = delete.with_caller(Caller::new("nightly-job", ["files:write"]));
/// assert_eq!(rules.decision(&nightly), Decision::Pass); // no folder given
/// let nightly = nightly.with_arguments(args);
/// assert!(matches!(rules.decision(&nightly), Decision::Approve(_)));
/// // Its approval is remembered for this folder only.
/// assert_eq!(rules.binds(&nightly).unwrap()["folder"], "tmp/build");
/// // A token whose subject is "anonymous" is not the local user.
/// let remote = Approval::new("delete_file", Hints::DESTRUCTIVE)
///     .with_caller(Caller::new("anonymous", ["files:write"]));
/// assert_eq!(rules.decision(&remote), Decision::Pass);
///
/// // Signed-in callers by their verified email or their groups.
/// let staff = Rules::from_toml(r#"
///     [[rule]]
///     callers = ["email:*@example.com", "group:admins"]
///     decision = "allow"
/// "#).unwrap();
/// let with = |claims: serde_json::Value| {
///     let call = Approval::new("delete_file", Hints::DESTRUCTIVE);
///     call.with_caller(Caller::new("u1", ["files:write"]).with_claims(claims.as_object().unwrap().clone()))
/// };
/// assert_eq!(staff.decision(&with(serde_json::json!({"email": "ann@example.com"}))), Decision::approve());
/// assert_eq!(staff.decision(&with(serde_json::json!({"groups": ["admins"]}))), Decision::approve());
/// assert_eq!(staff.decision(&with(serde_json::json!({"email": "eve@example.org"}))), Decision::Pass);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Rules {
    rules: Vec<Rule>,
}

/// A rules file that cannot be used: what is wrong, and where.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RulesError(String);

/// One rule as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    callers: Vec<String>,
    #[serde(default)]
    arguments: BTreeMap<String, String>,
    hints: Option<String>,
    decision: String,
    reason: Option<String>,
    remember_secs: Option<u64>,
    /// `"session"`: the approval holds for the caller's session.
    remember: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    rule: Vec<Written>,
}

#[derive(Clone, Debug)]
struct Rule {
    tools: Vec<glob::Pattern>,
    tags: Vec<glob::Pattern>,
    callers: Vec<Who>,
    arguments: Vec<(String, glob::Pattern)>,
    hints: Option<Class>,
    decision: Decision,
}

/// A tool's class by its hints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Write,
    Destructive,
    Additive,
}

impl Rules {
    /// Reads the rules in `path` (TOML). An error names the file, and the rule.
    ///
    /// ```
    /// let err = toolsmith::approve::Rules::from_path("/no/such/rules.toml".as_ref()).unwrap_err();
    /// assert!(err.to_string().starts_with("/no/such/rules.toml: "), "{err}");
    /// ```
    pub fn from_path(path: &Path) -> Result<Rules, RulesError> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| RulesError(format!("{}: {err}", path.display())))?;
        Rules::from_toml(&text)
            .map_err(|RulesError(why)| RulesError(format!("{}: {why}", path.display())))
    }

    /// The rules in `text` (TOML: a `[[rule]]` table per rule).
    pub fn from_toml(text: &str) -> Result<Rules, RulesError> {
        let file: File = toml::from_str(text).map_err(|err| RulesError(err.to_string()))?;
        let rules = file
            .rule
            .into_iter()
            .enumerate()
            .map(|(n, written)| {
                Rule::of(written).map_err(|why| RulesError(format!("rule {}: {why}", n + 1)))
            })
            .collect::<Result<_, _>>()?;
        Ok(Rules { rules })
    }

    /// The decision on `approval`: the first matching rule's, else `Pass`.
    pub fn decision(&self, approval: &Approval) -> Decision {
        self.first(approval)
            .map_or(Decision::Pass, |rule| rule.decision.clone())
    }

    /// The argument values an approval of `approval` is remembered for: those the first
    /// matching rule names (normalized: `1.0` is `1`); `None` when it names none (every
    /// call of the tool by the caller) or no rule matches.
    ///
    /// ```
    /// use toolsmith::{Hints, approve::{Approval, Rules}};
    ///
    /// let rules = Rules::from_toml("[[rule]]\narguments = { note_id = \"1\" }\ndecision = \"allow\"\nremember_secs = 60\n").unwrap();
    /// let args = serde_json::json!({"note_id": 1.0, "why": "x"}).as_object().unwrap().clone();
    /// let delete = Approval::new("delete_note", Hints::DESTRUCTIVE).with_arguments(args);
    /// assert_eq!(rules.binds(&delete), Some(serde_json::json!({"note_id": 1}).as_object().unwrap().clone()));
    /// ```
    pub fn binds(&self, approval: &Approval) -> Option<JsonObject> {
        let rule = self.first(approval)?;
        if rule.arguments.is_empty() {
            return None;
        }
        let values = rule
            .arguments
            .iter()
            .filter_map(|(name, _)| {
                let value = approval.arguments().get(name)?;
                Some((name.clone(), canonical::normalized(value)))
            })
            .collect();
        Some(values)
    }

    /// The first rule that matches `approval`.
    fn first(&self, approval: &Approval) -> Option<&Rule> {
        self.rules.iter().find(|rule| rule.matches(approval))
    }

    /// How many rules there are.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

impl Approver for Rules {
    fn decide<'a>(&'a self, approval: &'a Approval) -> Deciding<'a> {
        Box::pin(std::future::ready(self.decision(approval)))
    }

    fn name(&self) -> &str {
        "rules"
    }

    fn vetoes(&self, approval: &Approval) -> Option<String> {
        match self.decision(approval) {
            Decision::Deny(reason) => Some(reason),
            _ => None,
        }
    }

    fn binds(&self, approval: &Approval) -> Option<JsonObject> {
        Rules::binds(self, approval)
    }
}

impl Rule {
    fn of(written: Written) -> Result<Rule, String> {
        let patterns = |what: &str, list: &[String]| {
            list.iter()
                .map(|p| {
                    glob::Pattern::new(p).map_err(|err| format!("{what} pattern {p:?}: {err}"))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let hints = match written.hints.as_deref() {
            None => None,
            Some("write") => Some(Class::Write),
            Some("destructive") => Some(Class::Destructive),
            Some("additive") => Some(Class::Additive),
            Some(other) => {
                return Err(format!(
                    "`hints = {other:?}` is not a class: give \"write\", \"destructive\" or \"additive\""
                ));
            }
        };
        let reason = written
            .reason
            .unwrap_or_else(|| "a rule denies it".to_owned());
        match (written.remember.as_deref(), written.remember_secs) {
            (None | Some("session"), None) | (None, Some(_)) => {}
            (Some("session"), Some(_)) => {
                return Err("give `remember = \"session\"` or `remember_secs`, not both".into());
            }
            (Some(other), _) => {
                return Err(format!(
                    "`remember = {other:?}`: give \"session\" (or `remember_secs`)"
                ));
            }
        }
        if written.remember.is_some() && written.decision != "allow" {
            return Err("`remember` is for an `allow` rule".into());
        }
        let decision = match (written.decision.as_str(), written.remember_secs) {
            ("allow", None) if written.remember.is_some() => Decision::Approve(Remember::Session),
            ("allow", None) => Decision::approve(),
            ("allow", Some(0)) => return Err("`remember_secs` is 0: give 1 or more".into()),
            ("allow", Some(secs)) => Decision::Approve(Remember::For(Duration::from_secs(secs))),
            ("deny" | "ask", Some(_)) => {
                return Err("`remember_secs` is for an `allow` rule".into());
            }
            ("deny", None) => Decision::Deny(reason),
            ("ask", None) => Decision::Pass,
            (other, _) => {
                return Err(format!(
                    "`decision = {other:?}`: give \"allow\", \"deny\" or \"ask\""
                ));
            }
        };
        let mut arguments = Vec::new();
        for (name, pattern) in &written.arguments {
            let pattern = glob::Pattern::new(pattern)
                .map_err(|err| format!("arguments.{name} pattern {pattern:?}: {err}"))?;
            arguments.push((name.clone(), pattern));
        }
        let callers = written
            .callers
            .iter()
            .map(|entry| Who::parse(entry, true).map_err(|why| format!("callers {why}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Rule {
            tools: patterns("tools", &written.tools)?,
            tags: patterns("tags", &written.tags)?,
            callers,
            arguments,
            hints,
            decision,
        })
    }

    fn matches(&self, approval: &Approval) -> bool {
        let any = |patterns: &[glob::Pattern], text: &str| {
            patterns.is_empty() || patterns.iter().any(|p| p.matches(text))
        };
        let hints = approval.hints();
        let class = match self.hints {
            None => true,
            Some(Class::Write) => !hints.read_only,
            Some(Class::Destructive) => !hints.read_only && hints.destructive,
            Some(Class::Additive) => !hints.read_only && !hints.destructive,
        };
        let caller = approval.caller();
        class
            && any(&self.tools, approval.tool())
            && (self.tags.is_empty() || approval.tags().iter().any(|tag| any(&self.tags, tag)))
            && (self.callers.is_empty() || self.callers.iter().any(|who| who.matches(caller)))
            && self.arguments.iter().all(|(name, pattern)| {
                approval
                    .arguments()
                    .get(name)
                    .is_some_and(|value| pattern.matches(&canonical::text(value)))
            })
    }
}

#[cfg(test)]
mod tests;
