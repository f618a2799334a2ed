//! What an upstream says while it answers a call, passed on to the client that made the call:
//! its progress (by the progress token the gateway sent with the call); its questions (a
//! 2026-07-28 `input_required` answer, each question put to the client and the call sent
//! again with the answers; or, on earlier revisions, an elicitation or sampling request,
//! put to the client of the one call in flight); its log messages (to the one call in
//! flight; with none or several, which call a message is about is unknown, so it goes to the
//! gateway's own log); and a call the client gave up on, cancelled at the upstream too. A
//! call the upstream answers with a task of its own is followed to its end (`followed.rs`).
//!
//! A call is written down as in flight before it is sent, and struck out when it is
//! answered: a log message the upstream sends during a call is read while it is in flight,
//! and one read while no call is (sent after an answer) goes to the gateway's log, never
//! kept for a later call, which may be another client's.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientNotification, ClientRequest, ContentBlock, InputRequest, InputResponses,
    LoggingMessageNotificationParam, Notification, ProgressNotificationParam, ProgressToken,
    ProtocolVersion, RequestId, RequestMetaObject, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions};
use serde_json::Value;
use toolsmith::{Progress, context::ClientLog, context::Elicit, context::LogLevel};

/// How many `input_required` rounds one call may take before the gateway gives up on it.
const MAX_ROUNDS: usize = 8;

/// The calls in flight at one upstream, by the progress token each was sent with.
#[derive(Default)]
pub(crate) struct Relay {
    calls: Mutex<Calls>,
}

/// The calls in flight, and the progress that came for a token before its call was known.
#[derive(Default)]
struct Calls {
    /// Every call in flight, by a number of its own: written down before it is sent. Where
    /// log messages and questions go.
    flying: HashMap<u64, Arc<Downstream>>,
    /// The number of the next call.
    next: u64,
    /// The calls in flight by the progress token each was sent with (known once sent).
    by_token: HashMap<ProgressToken, Arc<Downstream>>,
    /// Reports read before the call that sent their token was written down (the upstream
    /// answered faster than the gateway took note): kept briefly, in order, for that call
    /// (a token is one request's: no other call takes them).
    early: Vec<ProgressNotificationParam>,
}

/// The most early reports kept; past it the oldest go (a token no call will claim).
const MAX_EARLY: usize = 64;

/// How long after its last progress report a call's answer is passed on at the earliest.
/// Some clients handle a notification in a later turn of their event loop than a response
/// read with it (the TypeScript SDK does): an answer sent right behind a report would end
/// the call there before the report is seen.
const AFTER_PROGRESS: Duration = Duration::from_millis(2);

/// Where what the upstream says about a call goes, and who answers its questions.
pub(crate) struct Downstream {
    pub(crate) progress: Progress,
    pub(crate) log: ClientLog,
    pub(crate) elicit: Elicit,
    /// When its last progress report was passed on.
    pub(crate) reported: Mutex<Option<Instant>>,
}

impl Downstream {
    /// The upstream's report, to this call's client (with its own token, when it asked for
    /// progress).
    fn relay_progress(&self, param: ProgressNotificationParam) {
        if self.progress.is_enabled() {
            self.progress
                .notify(param.progress, param.total, param.message);
            *self.reported.lock().unwrap() = Some(Instant::now());
        }
    }

    pub(crate) fn new(progress: Progress, log: ClientLog, elicit: Elicit) -> Self {
        Downstream {
            progress,
            log,
            elicit,
            reported: Mutex::new(None),
        }
    }
}

impl Relay {
    /// Sends `params` to `peer` as a `tools/call` and waits for its answer, relaying what
    /// the upstream says meanwhile to `caller`, and putting its questions to `caller`'s
    /// client (a question the client cannot answer ends the call with an error result that
    /// says why). Dropped before the answer (the client cancelled, the call timed out), the
    /// call is cancelled at the upstream.
    pub(crate) async fn call(
        self: &Arc<Self>,
        peer: &Peer<RoleClient>,
        mut params: CallToolRequestParams,
        caller: Arc<Downstream>,
    ) -> Result<CallToolResult, ServiceError> {
        // In flight from before it is sent until it is answered (or dropped).
        let _flying = Flying::new(self, &caller);
        for _ in 0..MAX_ROUNDS {
            let asked = match self.once(peer, params.clone(), &caller).await? {
                ServerResult::CallToolResult(result) => return Ok(result),
                ServerResult::InputRequiredResult(asked) => asked,
                ServerResult::CreateTaskResult(created) => {
                    return crate::followed::follow(peer, created, &caller.elicit).await;
                }
                _ => return Err(ServiceError::UnexpectedResponse),
            };
            let mut answers = InputResponses::new();
            for (key, question) in asked.input_requests.unwrap_or_default() {
                match caller.elicit.relay(question).await {
                    Ok(answer) => answers.insert(key, answer),
                    Err(err) => return Ok(unanswered(&err.to_string())),
                };
            }
            params = params.with_input_responses(answers);
            params.request_state = asked.request_state;
        }
        Ok(unanswered(&format!(
            "the upstream still asked after {MAX_ROUNDS} rounds of answers"
        )))
    }

    /// One `tools/call` round, what the upstream says meanwhile relayed to `caller`.
    async fn once(
        self: &Arc<Self>,
        peer: &Peer<RoleClient>,
        params: CallToolRequestParams,
        caller: &Arc<Downstream>,
    ) -> Result<ServerResult, ServiceError> {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let mut options = PeerRequestOptions::no_options();
        // On 2026-07-28 a request says which log messages it wants: those its client takes.
        let per_request = peer
            .peer_info()
            .is_some_and(|info| info.protocol_version >= ProtocolVersion::V_2026_07_28);
        if per_request && let Some(level) = caller.log.level() {
            let mut meta = RequestMetaObject::default();
            meta.set_log_level(level.into());
            options.meta = Some(meta);
        }
        let handle = peer.send_request_with_option(request, options).await?;
        let token = handle.progress_token.clone();
        {
            // Under the lock, so that a report read now waits for the early ones.
            let mut calls = self.calls.lock().unwrap();
            calls.by_token.insert(token.clone(), caller.clone());
            let early = std::mem::take(&mut calls.early);
            let (mine, others): (Vec<_>, Vec<_>) = early
                .into_iter()
                .partition(|said| said.progress_token == token);
            calls.early = others;
            for said in mine {
                caller.relay_progress(said);
            }
        }
        let mut pending = Pending {
            relay: self.clone(),
            token,
            unanswered: Some((peer.clone(), handle.id.clone())),
        };
        // What the upstream said before its answer was relayed as it was read
        // (`relaying_transport.rs`).
        let answer = handle.await_response().await;
        pending.unanswered = None;
        let reported = *caller.reported.lock().unwrap();
        if let Some(wait) = reported.and_then(|at| AFTER_PROGRESS.checked_sub(at.elapsed())) {
            tokio::time::sleep(wait).await;
        }
        answer
    }

    /// The client's answer to a question the upstream sent as a request (revisions before
    /// 2026-07-28): put to the client of the one call in flight; with none or several, whose
    /// question it is is unknown, and it is not asked.
    pub(crate) async fn ask(&self, question: InputRequest) -> Result<Value, String> {
        let caller = {
            let calls = self.calls.lock().unwrap();
            let mut callers = calls.flying.values();
            match (callers.next(), callers.next()) {
                (Some(caller), None) => caller.clone(),
                (None, _) => return Err("no call is in flight to ask its client".into()),
                (Some(_), Some(_)) => {
                    return Err(
                        "several calls are in flight: whose client to ask is unknown".into(),
                    );
                }
            }
        };
        caller
            .elicit
            .relay(question)
            .await
            .map_err(|err| err.to_string())
    }

    /// The upstream's progress on a call, to the client that made it (with the client's
    /// own token, when it asked for progress).
    pub(crate) fn progress(&self, param: ProgressNotificationParam) {
        let mut calls = self.calls.lock().unwrap();
        match calls.by_token.get(&param.progress_token) {
            Some(caller) => caller.relay_progress(param),
            None => {
                if calls.early.len() == MAX_EARLY {
                    calls.early.remove(0);
                }
                calls.early.push(param);
            }
        }
    }

    /// The upstream's log message: to the client of the one call in flight (at the client's
    /// level), else (none, or several) to the gateway's log only.
    pub(crate) fn log(&self, upstream: &str, param: LoggingMessageNotificationParam) {
        {
            let calls = self.calls.lock().unwrap();
            let mut callers = calls.flying.values();
            if let (Some(caller), None) = (callers.next(), callers.next()) {
                caller.log.log(LogLevel::from(param.level), param.data);
                return;
            }
        }
        // What the upstream said, escaped: it reaches the operator's terminal.
        tracing::info!(
            upstream,
            logger = %toolsmith_audit::shown(param.logger.as_deref().unwrap_or("")),
            level = ?param.level,
            data = %toolsmith_audit::shown(&param.data.to_string()),
            "the upstream logged"
        );
    }
}

/// A call in flight (one of [`Calls::flying`]): struck out when dropped.
struct Flying {
    relay: Arc<Relay>,
    number: u64,
}

impl Flying {
    /// `caller`'s call, written down as in flight.
    fn new(relay: &Arc<Relay>, caller: &Arc<Downstream>) -> Self {
        let mut calls = relay.calls.lock().unwrap();
        let number = calls.next;
        calls.next += 1;
        calls.flying.insert(number, caller.clone());
        Flying {
            relay: relay.clone(),
            number,
        }
    }
}

impl Drop for Flying {
    fn drop(&mut self) {
        let mut calls = self.relay.calls.lock().unwrap_or_else(|e| e.into_inner());
        calls.flying.remove(&self.number);
    }
}

/// A call sent and not yet answered: forgotten when dropped, and cancelled at the upstream
/// when dropped unanswered.
struct Pending {
    relay: Arc<Relay>,
    token: ProgressToken,
    unanswered: Option<(Peer<RoleClient>, RequestId)>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.relay
            .calls
            .lock()
            .unwrap()
            .by_token
            .remove(&self.token);
        let Some((peer, id)) = self.unanswered.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let why = "the gateway's client no longer waits for it".to_owned();
        let cancelled = CancelledNotificationParam::new(Some(id), Some(why));
        let notification = ClientNotification::CancelledNotification(Notification::new(cancelled));
        runtime.spawn(async move {
            let _ = peer.send_notification(notification).await;
        });
    }
}

/// The error result of a call whose upstream asked what the client could not answer.
fn unanswered(why: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!(
        "the upstream asked the client a question that got no answer: {why}"
    ))])
}
