//! Approval rules from a file: allow or deny a confirmation by tool, tag, hint class, caller
//! and argument patterns, without asking anyone.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::{Approval, Approver, Deciding, Decision, Remember};

/// Rules that decide confirmations in order: the first rule whose every stated condition
/// holds decides (`allow`, `deny`, or `ask`: the next approver, then the user, decides); when
/// none holds, the next approver decides. `serve --approve rules=FILE` reads them.
///
/// A condition is a list of glob patterns (`*`, `?`, `[a-z]`), one of which must match:
/// `tools` the tool's name, `tags` one of its tags, `callers` the caller's subject
/// (`anonymous` for a caller without one), `arguments` an argument's text (a string as it
/// is, anything else as JSON; a missing argument matches nothing); `hints` is the tool's
/// class by its hints: `write` (not read-only), `destructive` or `additive` (a write that
/// does not destroy). An `allow` rule may be remembered: `remember_secs = N` for the caller's
/// calls of the tool for N seconds, `remember = "session"` for its session.
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
    callers: Vec<glob::Pattern>,
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
        self.rules
            .iter()
            .find(|rule| rule.matches(approval))
            .map_or(Decision::Pass, |rule| rule.decision.clone())
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
        Ok(Rule {
            tools: patterns("tools", &written.tools)?,
            tags: patterns("tags", &written.tags)?,
            callers: patterns("callers", &written.callers)?,
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
        let caller = approval.caller().subject().unwrap_or("anonymous");
        class
            && any(&self.tools, approval.tool())
            && (self.tags.is_empty() || approval.tags().iter().any(|tag| any(&self.tags, tag)))
            && any(&self.callers, caller)
            && self.arguments.iter().all(|(name, pattern)| {
                approval.arguments().get(name).is_some_and(|value| {
                    let text = match value {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    pattern.matches(&text)
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hints;

    #[test]
    fn a_wrong_rule_says_which_and_why() {
        let err = |text: &str| Rules::from_toml(text).unwrap_err().to_string();
        assert!(err("[[rule]]\ndecision = \"maybe\"\n").contains("rule 1: `decision = \"maybe\"`"));
        assert!(
            err("[[rule]]\ndecision = \"deny\"\nremember_secs = 5\n")
                .contains("for an `allow` rule")
        );
        assert!(err("[[rule]]\ndecision = \"allow\"\nhints = \"scary\"\n").contains("not a class"));
        assert!(
            err("[[rule]]\ndecision = \"allow\"\nremember = \"forever\"\n")
                .contains("give \"session\"")
        );
        assert!(
            err("[[rule]]\ndecision = \"deny\"\nremember = \"session\"\n")
                .contains("for an `allow` rule")
        );
        assert!(err("[[rule]]\ndecision = \"allow\"\ntools = [\"[\"]\n").contains("tools pattern"));
        assert!(err("[[rule]]\ndecision = \"allow\"\ntool = [\"x\"]\n").contains("tool"));
    }

    #[test]
    fn the_first_matching_rule_decides_by_class_tag_and_caller() {
        let rules = Rules::from_toml(
            "[[rule]]\nhints = \"additive\"\ndecision = \"allow\"\n\
             [[rule]]\ntags = [\"admin\"]\ndecision = \"ask\"\n\
             [[rule]]\nhints = \"destructive\"\ncallers = [\"ops-*\"]\ndecision = \"allow\"\nremember_secs = 60\n\
             [[rule]]\nhints = \"write\"\ndecision = \"deny\"\n",
        )
        .unwrap();
        let create = Approval::new("create", Hints::ADDITIVE);
        assert_eq!(rules.decision(&create), Decision::approve());
        let purge = Approval::new("purge", Hints::DESTRUCTIVE).with_tags(["admin"]);
        assert_eq!(rules.decision(&purge), Decision::Pass);
        let ops = Approval::new("drop", Hints::DESTRUCTIVE)
            .with_caller(crate::context::Caller::new("ops-1", ["x"]));
        assert_eq!(
            rules.decision(&ops),
            Decision::Approve(Remember::For(Duration::from_secs(60)))
        );
        let anyone = Approval::new("drop", Hints::DESTRUCTIVE);
        assert_eq!(rules.decision(&anyone), Decision::deny("a rule denies it"));
        assert_eq!(
            rules.decision(&Approval::new("read", Hints::READ_ONLY)),
            Decision::Pass
        );
        assert_eq!(rules.len(), 4);
    }
}
