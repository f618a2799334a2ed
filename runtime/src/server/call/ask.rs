//! Step 3, confirmation, and the rounds of a call that asks its client.
//!
//! A tool that must be confirmed (it declares `confirm`, or the server's [`Confirm`] policy
//! covers its hints) runs only once the user accepted its question. How the question is asked
//! depends on the way the call came in, never on the tool:
//! - on revisions up to 2025-11-25, with a session (stdio, HTTP `--sessions`): an
//!   `elicitation/create` request to the client, awaited under the call's timeout and
//!   cancellation;
//! - on 2026-07-28: an `input_required` answer with the question and a sealed request state
//!   (`seal.rs`); the client asks the user and calls again with the answer and the state.
//!
//! A tool that asks during its call ([`Elicit`](crate::context::Elicit), [`Sample`](crate::context::Sample))
//! uses the same rounds on 2026-07-28: its answers so far travel in the sealed state.
//! Whatever goes wrong (a decline, a state altered, expired or made for another call, a
//! retry without the answer, a client that cannot ask) is an error result of kind
//! `Refused`, and the tool does not run.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{
    CallToolResponse, ClientResult, ElicitResult, ElicitationAction, InputRequest,
    InputRequiredResult, JsonObject, ServerRequest,
};
use serde_json::{Value, json};

use super::decisions::Decisions;
use super::remember::{Offer, REMEMBER_PROPERTY};
use super::seal::{Sealed, Unsealed, binding};
use super::{CallSetup, Pipeline, Retry};
use crate::context::inquiry::{Answered, Question};
use crate::context::{ChannelError, Inquiry};
use crate::tool::ToolInfo;
use crate::tool::output::Outcome;

/// The key of the confirmation among a call's questions.
pub(crate) const CONFIRM_KEY: &str = "confirm";

/// The one property of a confirmation form.
const CONFIRM_PROPERTY: &str = "confirm";

/// The `_meta` key that marks a form as a confirmation (a client may show it as one).
pub(crate) const CONFIRM_META: &str = "dev.toolsmith/confirm";

/// Whether a call is cleared to run its tool (its confirmation and its questions): cleared,
/// ended at once, or waiting for the client.
pub(crate) enum Clearance {
    /// Nothing: the tool runs.
    Open,
    /// Decided at once: the call ends with this outcome (a refusal, or input required).
    /// (Boxed, as the rest: an ordinary call carries only `Open` in its future.)
    Shut(Box<Outcome>),
    /// The client is asked, on the call's session: `None` once the user accepted.
    Asking(Pin<Box<dyn Future<Output = Option<Outcome>> + Send>>),
}

/// On 2026-07-28: a call's questions, and what a state for its next round is bound to.
pub(crate) struct Rounds {
    pub(crate) inquiry: Arc<Inquiry>,
    pub(crate) bound: Vec<u8>,
}

/// A call that confirms or asks, as the pipeline runs it.
pub(crate) struct Plan {
    pub(crate) clearance: Clearance,
    /// On 2026-07-28: the call's questions, and what a state for the next round is bound to.
    pub(crate) rounds: Option<Box<Rounds>>,
}

impl Pipeline {
    /// Whether a tool this server offers confirms or asks (its calls may carry request
    /// states).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn any_asks(&self) -> bool {
        self.registry
            .load()
            .tools()
            .iter()
            .filter(|tool| self.policy.allows(tool).is_ok())
            .any(|tool| self.confirms(tool) || tool.asks_client())
    }

    /// Whether a call of `tool` must be confirmed.
    pub(crate) fn confirms(&self, tool: &ToolInfo) -> bool {
        self.confirm.asks(tool)
    }

    /// The plan of a call of `tool` that confirms or asks (`None`: neither, the common case).
    pub(super) fn plan(
        &self,
        tool: &ToolInfo,
        arguments: Option<&JsonObject>,
        retry: Retry,
        setup: &CallSetup,
        span: &tracing::Span,
    ) -> Option<Plan> {
        let mut confirms = self.confirms(tool) && !setup.confirmed;
        // A grant this process holds settles the confirmation before anything is made for
        // it, when no approver could veto it (a grant kept in the shared store, or bound to
        // arguments, is found by the approvers' step, after the deny rules).
        if confirms
            && self
                .approvals
                .granted_here(&setup.caller, setup.session, tool.name())
        {
            self.granted(tool.name(), span);
            confirms = false;
        }
        if !confirms && !tool.asks_client() {
            return None;
        }
        let state = retry.request_state.clone();
        let decisions = self.decisions(tool.shared_name().clone(), span.clone());
        let mut plan = self.client_plan(tool, arguments, retry, setup, confirms, &decisions);
        // A state that opened (its round has questions to go on with) is used once.
        if let Some(state) = state
            && plan.rounds.is_some()
        {
            plan = self.used_once(tool.name(), &state, plan, confirms, &decisions);
        }
        if confirms && self.approvals.active() {
            return Some(self.approved(tool, arguments, setup, plan, decisions));
        }
        Some(plan)
    }

    /// The question asked before `tool` runs with `arguments` for `caller`: a `confirm_with`
    /// function gets a context of its own with the server's states (and the caller).
    pub(super) fn question(
        &self,
        tool: &ToolInfo,
        arguments: Option<&JsonObject>,
        caller: &crate::context::Caller,
    ) -> String {
        crate::tool::confirm::question(tool, arguments, || {
            crate::context::CallContext::new(
                tool.shared_name().clone(),
                self.states.clone(),
                tokio_util::sync::CancellationToken::new(),
                None,
                None,
                crate::context::SessionLevel::fixed(None),
                caller.clone(),
            )
        })
    }

    /// The plan of a call whose confirmation (if `confirms`) the user decides.
    fn client_plan(
        &self,
        tool: &ToolInfo,
        arguments: Option<&JsonObject>,
        retry: Retry,
        setup: &CallSetup,
        confirms: bool,
        decisions: &Decisions,
    ) -> Plan {
        if !setup.per_request {
            let clearance = if confirms {
                let question = self.question(tool, arguments, &setup.caller);
                let asker = crate::context::Asker {
                    channel: setup.sink.clone(),
                    per_request: false,
                };
                let name = tool.shared_name().clone();
                let decisions = decisions.clone();
                let offer = self.offer(tool.name(), &setup.caller);
                // Never longer than a request state lives, when the tool has no timeout of
                // its own (with one, the engine's timer ends the wait first).
                let wait = self.seal.ttl();
                Clearance::Asking(Box::pin(async move {
                    let form = request(question, offer.as_ref());
                    let asked = asker.ask(ServerRequest::ElicitRequest(form));
                    decisions.asked();
                    let Ok(answer) = tokio::time::timeout(wait, asked).await else {
                        return Some(Outcome::Refused(format!(
                            "The user did not answer the confirmation of tool '{name}' within {wait:?}: it did not run."
                        )));
                    };
                    match answer {
                        Ok(ClientResult::ElicitResult(result)) => {
                            let verdict = decisions.answered(verdict(&name, &result));
                            if let (None, Some(offer)) = (&verdict, &offer) {
                                offer.heard(&result).await;
                            }
                            verdict
                        }
                        Ok(_) => Some(refused(
                            &name,
                            "confirmation",
                            "the client's answer was not an elicitation result",
                        )),
                        Err(err) => {
                            decisions.unable();
                            Some(cannot_ask(&name, &err))
                        }
                    }
                }))
            } else {
                Clearance::Open
            };
            return Plan {
                clearance,
                rounds: None,
            };
        }
        self.round(tool, arguments, retry, setup, confirms, decisions)
    }

    /// On 2026-07-28: what the call knows from earlier rounds, and whether it is confirmed.
    fn round(
        &self,
        tool: &ToolInfo,
        arguments: Option<&JsonObject>,
        retry: Retry,
        setup: &CallSetup,
        confirms: bool,
        decisions: &Decisions,
    ) -> Plan {
        let name = tool.name();
        let what = if confirms { "confirmation" } else { "answers" };
        let capabilities = retry
            .meta
            .as_ref()
            .and_then(|meta| meta.client_capabilities());
        let can_confirm = capabilities
            .as_ref()
            .is_some_and(|c| crate::context::elicitation(c, false).1);
        let bound = binding(name, arguments, &setup.caller);
        let shut = |outcome| Plan {
            clearance: Clearance::Shut(Box::new(outcome)),
            rounds: None,
        };
        let mut answers = BTreeMap::new();
        if let Some(state) = &retry.request_state {
            let sealed = match self.seal.open(state, &bound) {
                Ok(sealed) => sealed,
                Err(Unsealed::Expired) => {
                    return shut(refused(
                        name,
                        what,
                        "the answer came after its request state expired; call again to be asked anew",
                    ));
                }
                Err(Unsealed::Invalid) => {
                    return shut(refused(
                        name,
                        what,
                        "the request state is invalid: it was altered, or made for another call, tool or caller; call again to be asked anew",
                    ));
                }
            };
            answers = sealed.answers;
            let responses = retry.input_responses.unwrap_or_default();
            for (key, fingerprint) in sealed.asked {
                let Some(value) = responses.get(&key) else {
                    return shut(refused(
                        name,
                        what,
                        &format!(
                            "the retry carries no answer to the question it was asked (`{key}`)"
                        ),
                    ));
                };
                answers.insert(
                    key,
                    Answered {
                        fingerprint,
                        value: value.clone(),
                    },
                );
            }
        }
        let inquiry = Arc::new(Inquiry::new(answers, capabilities));
        let clearance = if !confirms {
            Clearance::Open
        } else {
            match inquiry.answer(CONFIRM_KEY) {
                // Told, and remembered, once the state is known not to be a replay (the
                // clearance runs after `used_once` redeemed it): a replay refused is no approval.
                Some(answer) => match serde_json::from_value::<ElicitResult>(answer.clone()) {
                    Ok(result) => {
                        let verdict = verdict(name, &result);
                        let offer = self.offer(name, &setup.caller);
                        let decisions = decisions.clone();
                        Clearance::Asking(Box::pin(async move {
                            let verdict = decisions.answered(verdict);
                            if let (None, Some(offer)) = (&verdict, &offer) {
                                offer.heard(&result).await;
                            }
                            verdict
                        }))
                    }
                    Err(_) => Clearance::Shut(Box::new(refused(
                        name,
                        what,
                        "the answer to its confirmation is not an elicitation result",
                    ))),
                },
                None if !can_confirm => {
                    decisions.unable();
                    let why = ChannelError::NotDeclared("elicitation");
                    Clearance::Shut(Box::new(cannot_ask(name, &why)))
                }
                None => {
                    let question = self.question(tool, arguments, &setup.caller);
                    Clearance::Shut(Box::new(Outcome::InputRequired(vec![Question {
                        key: CONFIRM_KEY.to_owned(),
                        fingerprint: 0,
                        request: InputRequest::Elicitation(request(
                            question,
                            self.offer(name, &setup.caller).as_ref(),
                        )),
                    }])))
                }
            }
        };
        Plan {
            clearance,
            rounds: Some(Box::new(Rounds { inquiry, bound })),
        }
    }

    /// The `input_required` answer of a round that stopped for `questions`.
    pub(super) fn input_required(
        &self,
        questions: Vec<Question>,
        inquiry: &Inquiry,
        bound: &[u8],
    ) -> CallToolResponse {
        // Counted once the question is really sent (arguments that are refused never are).
        if questions.iter().any(|q| q.key == CONFIRM_KEY) {
            self.confirmation_asked();
        }
        let sealed = Sealed {
            answers: inquiry.answers().clone(),
            asked: questions
                .iter()
                .map(|q| (q.key.clone(), q.fingerprint))
                .collect(),
        };
        let state = self.seal.seal(bound, &sealed);
        let requests = questions.into_iter().map(|q| (q.key, q.request)).collect();
        CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(state)))
    }
}

/// The confirmation form: `question`, one boolean property, and the "don't ask again"
/// choice when the server offers one.
fn request(question: String, offer: Option<&Offer>) -> rmcp::model::ElicitRequest {
    let mut properties = json!({CONFIRM_PROPERTY: {
        "type": "boolean",
        "title": "Confirm",
        "description": "Run it",
        "default": true,
    }});
    if let Some(offer) = offer {
        properties[REMEMBER_PROPERTY] = offer.property();
    }
    let request = json!({"method": "elicitation/create", "params": {
        "_meta": {CONFIRM_META: true},
        "mode": "form",
        "message": question,
        "requestedSchema": {
            "type": "object",
            "properties": properties,
            "required": [CONFIRM_PROPERTY],
        },
    }});
    serde_json::from_value(request).expect("the confirmation form is an elicitation request")
}

/// What the user's answer means: `None` when they accepted. An accept with content is a
/// yes only when the content says `confirm: true` (unticked, missing, or not a boolean is a
/// no); an accept without content is a yes, as clients that show only buttons send.
fn verdict(tool: &str, result: &ElicitResult) -> Option<Outcome> {
    match result.action {
        ElicitationAction::Accept => {
            let no = result
                .content
                .as_ref()
                .is_some_and(|content| content.get(CONFIRM_PROPERTY) != Some(&Value::Bool(true)));
            no.then(|| declined(tool, "declined to confirm"))
        }
        ElicitationAction::Decline => Some(declined(tool, "declined to confirm")),
        _ => Some(declined(tool, "cancelled the confirmation of")),
    }
}

fn declined(tool: &str, what: &str) -> Outcome {
    Outcome::Refused(format!("The user {what} tool '{tool}': it did not run."))
}

/// A refusal of the `what` (the confirmation, the answers) of a call of `tool`.
pub(super) fn refused(tool: &str, what: &str, why: &str) -> Outcome {
    Outcome::Refused(format!(
        "The {what} of tool '{tool}' is not valid, so it did not run: {why}."
    ))
}

/// The refusal of a call whose confirmation could not be asked.
fn cannot_ask(tool: &str, why: &ChannelError) -> Outcome {
    let why = match why {
        ChannelError::NotDeclared(_) => {
            "this client cannot ask the user: it declared no elicitation capability".to_owned()
        }
        other => other.to_string(),
    };
    Outcome::Refused(format!(
        "Tool '{tool}' needs the user's confirmation, and it could not be asked ({why}): it did not run."
    ))
}
