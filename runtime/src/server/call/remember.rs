//! Step 3, the user's "don't ask again": the choice a confirmation form offers when the
//! server has one ([`Server::offer_remember`](crate::Server::offer_remember)), and the grant
//! a yes with it ticked makes.

use std::time::Duration;

use rmcp::model::{ElicitResult, ElicitationAction};
use serde_json::{Value, json};

use super::Pipeline;
use crate::approve::Grants;
use crate::context::Caller;

/// The property of a confirmation form that lets the user say "don't ask again".
pub(super) const REMEMBER_PROPERTY: &str = "remember";

/// The user's "don't ask again" choice, when the server offers it
/// ([`Server::offer_remember`](crate::Server::offer_remember)): for this caller and tool.
pub(super) struct Offer {
    grants: Grants,
    ttl: Duration,
    caller: Caller,
    tool: String,
}

impl Offer {
    /// The form's property: what the choice covers, in words.
    pub(super) fn property(&self) -> Value {
        let spoken = spoken(self.ttl);
        json!({
            "type": "boolean",
            "title": format!("Don't ask again for {spoken}"),
            "description": format!(
                "Your calls of {} run without asking for the next {spoken}.",
                self.tool
            ),
            "default": false,
        })
    }

    /// Remembers the approval when the user accepted with the choice ticked (in the shared
    /// store too, when there is one, before the call goes on).
    pub(super) async fn heard(&self, result: &ElicitResult) {
        let ticked = result
            .content
            .as_ref()
            .is_some_and(|content| content.get(REMEMBER_PROPERTY) == Some(&Value::Bool(true)));
        if matches!(result.action, ElicitationAction::Accept) && ticked {
            let scope = crate::approve::Scope {
                caller: &self.caller,
                tool: &self.tool,
                bound: None,
                session: None,
            };
            if let Some(writing) = self.grants.remember(&scope, self.ttl) {
                writing.await;
            }
        }
    }
}

/// `ttl` as a person says it: `1 h`, `30 min`, `90 s`.
fn spoken(ttl: Duration) -> String {
    let secs = ttl.as_secs();
    match secs {
        s if s >= 3600 && s % 3600 == 0 => format!("{} h", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

impl Pipeline {
    /// The "don't ask again" choice of a confirmation of `tool` by `caller`, when offered.
    pub(super) fn offer(&self, tool: &str, caller: &Caller) -> Option<Offer> {
        Some(Offer {
            grants: self.approvals.grants.clone(),
            ttl: self.approvals.remember?,
            caller: caller.clone(),
            tool: tool.to_owned(),
        })
    }
}
