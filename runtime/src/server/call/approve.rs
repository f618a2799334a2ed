//! Step 3, before the user is asked: the server's approvers (`crate::approve`), and a
//! 2026-07-28 request state used once when the task store keeps marks of used states.
//!
//! Each wraps the plan the user's answers make (`ask.rs`) in a clearance of its own, which
//! decides first and otherwise lets that plan decide.

use rmcp::model::JsonObject;

use super::ask::{Clearance, Plan, refused};
use super::decisions::Decisions;
use super::{CallSetup, Pipeline};
use crate::tool::ToolInfo;
use crate::tool::output::Outcome;

impl Pipeline {
    /// `plan`, once the task store marked `state` used: a state used already is refused
    /// (on any replica that shares the store); a store that keeps no marks lets it through,
    /// as one that fails does not (the call is refused, saying why). A confirmation refused
    /// for its replay is told as `replayed` (never as the approval it once was).
    pub(super) fn used_once(
        &self,
        tool: &str,
        state: &str,
        plan: Plan,
        confirms: bool,
        decisions: &Decisions,
    ) -> Plan {
        use sha2::Digest;
        let digest: String = sha2::Sha256::digest(state.as_bytes())
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        let store = self.tasks.store.clone();
        let ttl = self.seal.ttl();
        let tool = tool.to_owned();
        let Plan { clearance, rounds } = plan;
        let decisions = decisions.clone();
        let clearance = Clearance::Asking(Box::pin(async move {
            let what = if confirms { "confirmation" } else { "answers" };
            match store.redeem(&digest, ttl).await {
                Ok(Some(false)) => Some(refused_replay(&decisions, confirms, &tool, what)),
                Err(err) => Some(refused(
                    &tool,
                    what,
                    &format!("whether its request state was used already is unknown ({err})"),
                )),
                Ok(_) => settle(clearance).await,
            }
        }));
        Plan { clearance, rounds }
    }

    /// `plan`, with the server's approvers first: a remembered grant or an approver that
    /// approves clears the call (unless the call's request state was refused: that refusal
    /// stands), one that denies refuses the call with its reason, and when every one passes
    /// the user decides as `plan` says.
    pub(super) fn approved(
        &self,
        tool: &ToolInfo,
        arguments: Option<&JsonObject>,
        setup: &CallSetup,
        plan: Plan,
        decisions: Decisions,
    ) -> Plan {
        let approval = crate::approve::Approval::new(tool.name(), tool.hints())
            .with_tags(tool.tags().iter().cloned())
            .with_question(self.question(tool, arguments, &setup.caller))
            .with_arguments(arguments.cloned().unwrap_or_default())
            .with_caller(setup.caller.clone())
            .in_session(setup.session);
        let approvals = self.approvals.clone();
        let Plan { clearance, rounds } = plan;
        // On 2026-07-28 a call without rounds had its request state refused.
        let state_refused = setup.per_request && rounds.is_none();
        let clearance = Clearance::Asking(Box::pin(async move {
            use crate::approve::Decision;
            let refused = |reason: String| {
                Some(Outcome::Refused(format!(
                    "Tool '{}' was not approved: {reason}. It did not run.",
                    approval.tool()
                )))
            };
            match approvals.decide(&approval).await {
                (Decision::Approve(_), by) if !state_refused => {
                    decisions.decided(by, true, None);
                    return None;
                }
                (Decision::Deny(reason), by) => {
                    decisions.decided(by, false, Some(&reason));
                    return refused(reason);
                }
                _ => {}
            }
            let asked = settle(clearance).await;
            // The client could not ask its user (an unattended agent): the approvers that
            // stand in for it decide.
            if !decisions.client_could_not_ask() {
                return asked;
            }
            match approvals.decide_instead(&approval).await {
                (Decision::Approve(_), by) => {
                    decisions.decided(by, true, None);
                    None
                }
                (Decision::Deny(reason), by) => {
                    decisions.decided(by, false, Some(&reason));
                    refused(reason)
                }
                (Decision::Pass, _) => asked,
            }
        }));
        Plan { clearance, rounds }
    }
}

/// The refusal of a call whose request state was used already: a confirmation so refused
/// is told as `replayed`.
fn refused_replay(decisions: &Decisions, confirms: bool, tool: &str, what: &str) -> Outcome {
    if confirms {
        decisions.replayed();
    }
    refused(
        tool,
        what,
        "its request state was used already (each one is used once); call again to be asked anew",
    )
}

/// What `clearance` lets through: `None` when the call runs, else its outcome.
async fn settle(clearance: Clearance) -> Option<Outcome> {
    match clearance {
        Clearance::Open => None,
        Clearance::Shut(outcome) => Some(*outcome),
        Clearance::Asking(asking) => asking.await,
    }
}
