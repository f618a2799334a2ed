//! What a call knows of its questions to the client on the 2026-07-28 revision, where the
//! server cannot send a request during a call (the multi round-trip request, SEP-2322). A
//! tool that asks runs again from the start on every round: each question is keyed by its
//! place in the run (`ask-1`, `ask-2`, ...) and a fingerprint of what it asks, so that on
//! the next round the same question finds its answer, and a question that changed is asked
//! anew. A question without an answer stops the run: the call answers `input_required` with
//! every question that was waiting, and the pipeline seals what was answered so far into the
//! request state.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::InputRequest;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::Notify;

/// An answer the client gave to a question of an earlier round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Answered {
    /// The fingerprint of the question it answers.
    #[serde(rename = "f")]
    pub(crate) fingerprint: u64,
    #[serde(rename = "v")]
    pub(crate) value: Value,
}

/// A question the run could not answer: the client is asked it.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct Question {
    pub(crate) key: String,
    pub(crate) fingerprint: u64,
    pub(crate) request: InputRequest,
}

/// One call's questions on 2026-07-28.
#[derive(Debug, Default)]
pub(crate) struct Inquiry {
    /// Every answer known: those sealed in the request state, and this round's.
    answers: BTreeMap<String, Answered>,
    /// The questions asked so far in this run.
    asked: AtomicUsize,
    /// The questions this run is waiting for.
    waiting: Mutex<Vec<Question>>,
    /// Wakes the engine when a question is waiting.
    stopped: Notify,
    /// Fired by the engine once the run stopped: a tool still waiting for an answer (a sync
    /// one, blocked on it) gets an error and comes back.
    halted: tokio_util::sync::CancellationToken,
    /// What the client declared in the request's `_meta`.
    pub(crate) capabilities: Option<rmcp::model::ClientCapabilities>,
}

impl Inquiry {
    pub(crate) fn new(
        answers: BTreeMap<String, Answered>,
        capabilities: Option<rmcp::model::ClientCapabilities>,
    ) -> Self {
        Inquiry {
            answers,
            capabilities,
            ..Inquiry::default()
        }
    }

    /// Whether the client declared what `request` needs; else the capability's name.
    pub(crate) fn permits(&self, request: &InputRequest) -> Result<(), &'static str> {
        let none = rmcp::model::ClientCapabilities::default();
        let capabilities = self.capabilities.as_ref().unwrap_or(&none);
        let (needed, declared) = match request {
            InputRequest::Elicitation(elicit) => super::channel::elicitation(
                capabilities,
                matches!(
                    elicit.params,
                    rmcp::model::ElicitRequestParams::UrlElicitationParams { .. }
                ),
            ),
            InputRequest::CreateMessage(_) => ("sampling", capabilities.sampling.is_some()),
            InputRequest::ListRoots(_) => ("roots", capabilities.roots.is_some()),
            _ => ("a capability this server does not know", false),
        };
        if declared { Ok(()) } else { Err(needed) }
    }

    /// The answers known, to seal for the next round.
    pub(crate) fn answers(&self) -> &BTreeMap<String, Answered> {
        &self.answers
    }

    /// The answer to `key` (a question the pipeline itself asks, as the confirmation).
    pub(crate) fn answer(&self, key: &str) -> Option<&Value> {
        self.answers.get(key).map(|answered| &answered.value)
    }

    /// The next question of the run: its answer when the client gave one to the same
    /// question, else `None` after the question was recorded and the run told to stop.
    pub(crate) fn ask(&self, request: InputRequest) -> Option<Value> {
        let number = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        let key = format!("ask-{number}");
        let fingerprint = fingerprint(&request);
        if let Some(answered) = self.answers.get(&key)
            && answered.fingerprint == fingerprint
        {
            return Some(answered.value.clone());
        }
        let question = Question {
            key,
            fingerprint,
            request,
        };
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(question);
        self.stopped.notify_one();
        None
    }

    /// Resolves once a question is waiting.
    pub(crate) async fn stopped(&self) {
        loop {
            let notified = self.stopped.notified();
            if !self
                .waiting
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_empty()
            {
                return;
            }
            notified.await;
        }
    }

    /// Tells a run that stopped for its questions that it has stopped.
    pub(crate) fn halt(&self) {
        self.halted.cancel();
    }

    /// Resolves once the run stopped for its questions.
    pub(crate) async fn halted(&self) {
        self.halted.cancelled().await;
    }

    /// The questions waiting, taken.
    pub(crate) fn take_waiting(&self) -> Vec<Question> {
        std::mem::take(&mut *self.waiting.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// A stable fingerprint of what a question asks (its JSON), the same in every process.
pub(crate) fn fingerprint(request: &InputRequest) -> u64 {
    fingerprint_bytes(&serde_json::to_vec(request).unwrap_or_default())
}

/// The same fingerprint of a text.
pub(crate) fn fingerprint_text(text: &str) -> u64 {
    fingerprint_bytes(text.as_bytes())
}

fn fingerprint_bytes(bytes: &[u8]) -> u64 {
    let digest = Sha256::digest(bytes);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rmcp::model::InputRequest;
    use serde_json::json;

    use super::{Answered, Inquiry, fingerprint};

    fn question(message: &str) -> InputRequest {
        serde_json::from_value(json!({"method": "elicitation/create", "params": {
            "mode": "form", "message": message,
            "requestedSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}}))
        .unwrap()
    }

    #[tokio::test]
    async fn a_question_answered_before_returns_its_answer_and_a_new_one_stops_the_run() {
        let first = question("How many?");
        let mut answers = BTreeMap::new();
        answers.insert(
            "ask-1".to_owned(),
            Answered {
                fingerprint: fingerprint(&first),
                value: json!({"action": "accept", "content": {"n": 3}}),
            },
        );
        let inquiry = Inquiry::new(answers, None);
        assert_eq!(
            inquiry.ask(first).unwrap()["content"]["n"],
            3,
            "the same question, answered on an earlier round"
        );
        assert!(inquiry.ask(question("And then?")).is_none());
        inquiry.stopped().await;
        let waiting = inquiry.take_waiting();
        assert_eq!(waiting.len(), 1);
        assert_eq!(waiting[0].key, "ask-2");
    }

    #[test]
    fn a_question_that_changed_is_asked_anew() {
        let mut answers = BTreeMap::new();
        answers.insert(
            "ask-1".to_owned(),
            Answered {
                fingerprint: fingerprint(&question("How many?")),
                value: json!({"action": "accept"}),
            },
        );
        let inquiry = Inquiry::new(answers, None);
        assert!(inquiry.ask(question("How many, really?")).is_none());
    }
}
