//! The call pipeline. Every `tools/call`, whichever way it came in (the stdio fast path, the
//! HTTP fast path, rmcp's service through the adapter, or the `call` command), runs the same
//! steps, in this order:
//!
//! 1. **resolve**: the tool by name, among those the serving policy offers (an unknown tool
//!    is a protocol error; a tool the policy withholds, a `Refused` result), with the states
//!    it needs;
//! 2. **access**: with authorization, the caller's token grants the scope the tool needs
//!    (`-32003` otherwise); then the **arguments** of a tool that is not a `#[tool]` are
//!    checked against its input schema (an `isError` result naming every problem, and
//!    nothing further runs: no layer, no question, no task; a `#[tool]`'s are checked by
//!    decoding them, in the engine, before its confirmation);
//! 3. the hook points, between access and dispatch and in this order: layers around the
//!    call, confirmation (the server's approvers, `approve.rs`, then the user, `ask.rs`; a
//!    2026-07-28 request state used once when the task store keeps marks), running as a task (`task/`: a tool that declares
//!    `task`, called by a client with the tasks extension, is answered with the task's
//!    handle, and runs on);
//! 4. **dispatch** on the engine (`engine.rs`): the arguments decoded into the tool's
//!    parameters, its timeout, panics caught, sync work on the pool (`pool.rs`) until its
//!    tool proves quick (`tool/place.rs`), the client's cancellation;
//! 5. the outcome as an [`CallReply`], which the way in writes (`encode.rs` on the fast paths,
//!    rmcp's service on its own);
//! 6. one debug line per call: the tool, the way in, the outcome, the duration (never the
//!    arguments); with the features, the call's metrics and the end of its span (`log.rs`).
//!
//! A way in differs only in how it reads the request (`decode.rs`: one allow-list for every
//! fast path) and how it writes the answer. One tracker of calls in flight (`Pipeline::tracker`)
//! serves every way in, so that a stop waits for all of them.

mod approve;
mod ask;
mod complete;
mod decisions;
mod engine;
pub(crate) mod inline;
pub(crate) mod layer;
mod log;
mod outcome;
pub(crate) mod pool;
pub(crate) mod read;
mod remember;
pub(crate) mod seal;
pub(crate) mod states;
pub(crate) mod task;

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::Either;
use rmcp::model::CallToolRequestParams;
use tokio_util::sync::CancellationToken;

/// What the call pipeline answers: an outcome of the call, or a protocol error.
pub(crate) type CallReply = Result<rmcp::model::CallToolResponse, rmcp::ErrorData>;

/// The answer to a call whose task was lost (it panicked outside the engine's guard, or the
/// runtime is stopping), on any way in that moved the call to a task or a pool thread.
pub(crate) fn lost(err: tokio::task::JoinError) -> CallReply {
    Err(rmcp::ErrorData::internal_error(
        format!("the call was lost: {err}"),
        None,
    ))
}

pub(crate) use outcome::{error_result, unknown_tool};

use tokio_util::task::TaskTracker;

use super::tool_search::ToolSearch;
use super::{Confirm, Policy};
use crate::context::{CallContext, SessionLevel, StateMap};
pub(crate) use crate::request::{CallSetup, Retry};
use crate::request::{Request, ToolCall};
use crate::tool::ToolRef;
use crate::tool::output::Outcome;
use crate::{
    context::Caller, error::ErrorKind, registry::RegistryHandle, tool::TaskSupport, tool::ToolInfo,
};
use ask::Clearance;
use engine::Callee;
use inline::Blocking;
use log::CallLog;
use pool::CallPool;
use seal::Seal;

/// The way a call came in: it changes nothing but the per-call log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Way {
    /// The stdio session's fast path.
    Stdio,
    /// The HTTP transport's fast path.
    #[cfg(feature = "http")]
    Http,
    /// rmcp's service, through the adapter (any transport).
    Rmcp,
    /// The `call` command, in-process.
    Local,
}

impl Way {
    fn fast(self) -> bool {
        match self {
            Way::Stdio => true,
            #[cfg(feature = "http")]
            Way::Http => true,
            Way::Rmcp | Way::Local => false,
        }
    }
}

impl Way {
    fn as_str(self) -> &'static str {
        match self {
            Way::Stdio => "stdio",
            #[cfg(feature = "http")]
            Way::Http => "http",
            Way::Rmcp => "rmcp",
            Way::Local => "local",
        }
    }
}

impl fmt::Display for Way {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What every call of one server runs through: the tools, the policy, the states, and the
/// engine's pool; shared by every way in and every session. It knows no session and no
/// transport: a way in gives each call its setup.
#[derive(Clone)]
pub(crate) struct Pipeline {
    /// The tools, resources and prompts served: read by every request as they are then.
    pub(crate) registry: RegistryHandle,
    pub(crate) policy: Arc<Policy>,
    pub(crate) states: StateMap,
    /// Every tool's states were checked when the server was made: no call needs to look.
    pub(crate) states_checked: bool,
    /// Where blocking work runs.
    pub(crate) pool: CallPool,
    /// Tools whose first step blocked its thread.
    pub(crate) blocking: Arc<Blocking>,
    /// Every call in flight past its first step, on every way in: a stop waits for them. A
    /// way in tracks a call that goes on after the step that read it (the stdio fast path's
    /// tasks, the HTTP fast path's, rmcp's calls); a call done within its first step needs
    /// no tracking, and does not pay for it.
    pub(crate) tracker: TaskTracker,
    /// With authorization: the names of the hint scopes, by which a caller's calls are
    /// decided.
    pub(crate) scopes: Option<Arc<crate::tool::ScopeNames>>,
    /// Which tools are confirmed by the user besides those that declare it.
    pub(crate) confirm: Confirm,
    /// Who decides a confirmation before the user is asked.
    pub(crate) approvals: Arc<crate::approve::Approvals>,
    /// The key of the request states of calls that ask on 2026-07-28.
    pub(crate) seal: Arc<Seal>,
    /// The key is this process's own (no `state_key` was given): over HTTP, replicas are told
    /// they need a shared one.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) random_seal: bool,
    /// Where `Resources` notifications go: the server's subscriptions.
    pub(crate) updates: Option<Arc<dyn crate::context::Updates>>,
    /// The layers around every call (none: a call goes straight to dispatch).
    pub(crate) layers: Arc<layer::Layers>,
    /// Where calls are counted and timed, when the server exports metrics.
    pub(crate) metrics: Option<crate::metrics::Metrics>,
    /// The tasks: their store, and the runs of this process.
    pub(crate) tasks: Arc<task::Tasks>,
    /// Search mode's two tools (`Server::tool_search`).
    pub(crate) tool_search: Option<Arc<ToolSearch>>,
}

/// What a pipeline is made of, all gathered before it is made: nothing of the configuration
/// is set on it afterwards (what only a way in knows, the scopes of a guarded HTTP endpoint
/// and the metrics it records into, that way in decided first: `server::WayInSettings`).
pub(crate) struct Parts {
    pub(crate) registry: RegistryHandle,
    pub(crate) policy: Arc<Policy>,
    pub(crate) states: StateMap,
    /// Every tool's states were checked when the server was made.
    pub(crate) states_checked: bool,
    pub(crate) pool: CallPool,
    pub(crate) seal: Seal,
    /// The key is this process's own (no `state_key` was given).
    pub(crate) random_seal: bool,
    pub(crate) confirm: Confirm,
    pub(crate) approvals: crate::approve::Approvals,
    pub(crate) layers: layer::Layers,
    pub(crate) tasks: task::Tasks,
    /// With authorization: the names of the hint scopes calls are decided by.
    pub(crate) scopes: Option<Arc<crate::tool::ScopeNames>>,
    /// Where calls are counted and timed, when the server exports metrics.
    pub(crate) metrics: Option<crate::metrics::Metrics>,
    /// Search mode: `tools/list` gives `search_tools` and `call_tool`.
    pub(crate) tool_search: bool,
}

impl Pipeline {
    /// The pipeline of `parts`, whose `Resources` notifications go to `updates`.
    pub(crate) fn new(parts: Parts, updates: Option<Arc<dyn crate::context::Updates>>) -> Self {
        let Parts {
            registry,
            policy,
            states,
            states_checked,
            pool,
            seal,
            random_seal,
            confirm,
            approvals,
            layers,
            tasks,
            scopes,
            metrics,
            tool_search,
        } = parts;
        let tool_search = tool_search.then(|| {
            Arc::new(ToolSearch::new(
                registry.clone(),
                policy.clone(),
                scopes.clone(),
                confirm,
            ))
        });
        Pipeline {
            registry,
            policy,
            states,
            states_checked,
            pool,
            blocking: Arc::default(),
            tracker: TaskTracker::new(),
            scopes,
            confirm,
            approvals: Arc::new(approvals),
            seal: Arc::new(seal),
            random_seal,
            updates,
            layers: Arc::new(layers),
            metrics,
            tasks: Arc::new(tasks),
            tool_search,
        }
    }

    /// Runs one call through the pipeline's steps. Not an `async fn`: the steps before
    /// dispatch run here, and the future returned is the dispatch itself (or the answer a
    /// step gave), so that nothing is copied into one more future's state per call.
    pub(crate) fn call(
        &self,
        mut params: CallToolRequestParams,
        cancel: CancellationToken,
        setup: CallSetup,
        way: Way,
    ) -> impl Future<Output = CallReply> + Send + '_ {
        let admitted = self.admit(&params.name, &mut params.arguments, &setup.caller);
        // Named as registered (or `unknown`): a span name is never what a request made up.
        // The registry is asked again only for a call refused before it runs.
        let span = if crate::trace::active() {
            let known = match &admitted {
                Ok(tool) => Some(tool.clone()),
                Err(_) => self.registry.tool(&params.name),
            };
            let span = crate::trace::call_span(
                "tools/call",
                known.as_deref().map_or("unknown", |t| t.name()),
                params.meta.as_ref().map(|meta| &meta.0.0),
                setup.trace.as_ref(),
                way.as_str(),
            );
            // (The scope is named only for a span that exists: it costs an allocation.)
            if !span.is_disabled()
                && let Some(tool) = known
            {
                let scope = self.scope_of(&tool);
                crate::trace::tool_known(&span, &tool, &setup.caller, scope.as_deref());
            }
            span
        } else {
            tracing::Span::none()
        };
        let log = CallLog::start(way, "tools/call", self, span.into()).of(self, &setup);
        let CallToolRequestParams {
            name,
            arguments,
            input_responses,
            request_state,
            meta,
            ..
        } = params;
        let retry = Retry {
            input_responses,
            request_state,
            meta,
        };
        let answer = match admitted {
            Ok(tool) => {
                // From here on, the call is one value.
                let as_task = task::runs_as_task(&tool, retry.meta.as_ref(), &setup);
                let call = ToolCall {
                    tool,
                    arguments,
                    setup,
                    retry,
                    cancel,
                    as_task,
                };
                if self.layers.is_empty() {
                    Either::Left(self.dispatch(call, log))
                } else {
                    // Boxed: a layered call's future is the layers' own.
                    let name = call.tool.shared_name().clone();
                    let layered = self.through_layers(Request::Tool(call)).map(move |reply| {
                        let answer = reply.into_tool();
                        log.finish(&name, &answer);
                        answer
                    });
                    Either::Right(Either::Left(Box::pin(layered)))
                }
            }
            Err(answer) => {
                log.finish(&name, &*answer);
                Either::Right(Either::Right(std::future::ready(*answer)))
            }
        };
        // The call's span ends with its log (`log.rs`), once the answer is made. It is not
        // entered: only toolsmith's own spans are exported, each with its parent given.
        answer
    }

    /// The scope a call of `tool` needs, with authorization (for its span).
    fn scope_of(&self, tool: &ToolInfo) -> Option<String> {
        let names = self.scopes.as_ref()?;
        Some(names.required(tool).to_string())
    }

    /// Step 2: the error that answers a call of `tool` by `caller` when its token may not
    /// make it (the HTTP edge refuses such a call first, with 403, a search mode's `call_tool`
    /// by the tool it names; this is the second line).
    /// Only a server with authorization has scopes to decide by.
    fn refuse(&self, tool: &ToolInfo, caller: &Caller) -> Option<rmcp::ErrorData> {
        let names = self.scopes.as_ref()?;
        let needed = names.required(tool);
        if needed.granted_by(caller.scopes()) {
            return None;
        }
        Some(rmcp::ErrorData::new(
            rmcp::model::ErrorCode(-32003),
            format!(
                "Forbidden: calling tool {} needs scope \"{needed}\", which the access token does not grant",
                tool.name()
            ),
            None,
        ))
    }

    /// Steps 1 to 3: the tool to run with `arguments`, or the answer that ends the call
    /// before it runs. (Boxed: the answer is large, and rare.)
    fn admit(
        &self,
        name: &str,
        arguments: &mut Option<rmcp::model::JsonObject>,
        caller: &Caller,
    ) -> Result<ToolRef, Box<CallReply>> {
        // 1. resolve (search mode's own two tools first: they find and call the others,
        // which the policy and the scopes decide)
        let meta = self
            .tool_search
            .as_ref()
            .and_then(|search| search.tool(name));
        let is_meta = meta.is_some();
        let Some(tool) = meta.or_else(|| self.registry.tool(name)) else {
            return Err(Box::new(Err(unknown_tool(name))));
        };
        if !is_meta && let Err(why) = self.policy.allows(&tool) {
            let refused = error_result(ErrorKind::Refused, why.to_string());
            return Err(Box::new(Ok(refused.into())));
        }
        // Only a server built without the startup check (the test client, `call`) gets here
        // without a state the tool needs.
        if !self.states_checked
            && let Some(missing) = states::missing_state(&self.states, &tool)
        {
            let missing = error_result(ErrorKind::Failed, missing.to_string());
            return Err(Box::new(Ok(missing.into())));
        }
        // A tool whose audience does not admit the caller does not exist for it.
        if !tool.admits(caller) {
            return Err(Box::new(Err(unknown_tool(name))));
        }
        // 2. access
        if !is_meta && let Some(refused) = self.refuse(&tool, caller) {
            return Err(Box::new(Err(refused)));
        }
        // The arguments, before anything runs for them (a `#[tool]`'s: nothing to do here).
        if let Err(problems) = tool.check_arguments(arguments) {
            let invalid = outcome::tool_result(&tool, Outcome::Invalid(problems));
            return Err(Box::new(Ok(invalid.into())));
        }
        // 3. Layers, confirmation and tasks hook in here, in that order: the layers around
        // the rest (`layer.rs`), then confirmation, the call's clearance (`ask.rs`), run by the
        // engine once the arguments are known good, then the task (`task/`).
        Ok(tool)
    }

    /// Steps 4 to 6: runs `tool` on the engine, its outcome as the answer, the log line. Not
    /// an `async fn`: the call's context is made here, and the future returned is the
    /// engine's own, so that nothing is held twice in the call's state (a future that awaits
    /// another keeps its own copy of what it moved in).
    fn dispatch(
        &self,
        call: ToolCall,
        log: CallLog,
    ) -> impl Future<Output = CallReply> + Send + '_ {
        // A tool that may run as a task is decided on in `task/` (boxed: such a call
        // waits on the store); every other call pays one comparison for tasks existing.
        if call.tool.task() != TaskSupport::Never {
            return Either::Right(self.dispatch_task(call, log));
        }
        Either::Left(self.dispatch_now(call, log))
    }

    /// Steps 4 to 6 of an ordinary call (see `dispatch`).
    fn dispatch_now(
        &self,
        call: ToolCall,
        log: CallLog,
    ) -> impl Future<Output = CallReply> + Send + '_ {
        let ToolCall {
            tool,
            arguments,
            setup,
            retry,
            cancel,
            ..
        } = call;
        inline::started(tool.shared_name());
        let span = log.traced();
        let (clearance, rounds) = match self.plan(&tool, arguments.as_ref(), retry, &setup, &span) {
            Some(plan) => (plan.clearance, plan.rounds),
            None => (Clearance::Open, None),
        };
        let mut context = self.context(tool.shared_name().clone(), &cancel, setup);
        context.inquiry = rounds.as_ref().map(|rounds| rounds.inquiry.clone());
        let timeout = tool.timeout();
        let run = async move {
            let callee = Callee::tool(&tool, tool.name());
            let invoke = |context: &CallContext| tool.invoke(arguments, context);
            let outcome = engine::run(
                callee, invoke, timeout, context, cancel, &self.pool, clearance,
            )
            .await;
            (tool, outcome)
        };
        run.map(move |(tool, outcome)| {
            let answer = Ok(self.answer_of(&tool, outcome, rounds.as_deref()));
            log.finish(tool.name(), &answer);
            answer
        })
    }

    /// The answer of a call of `tool` that ended with `outcome` (`None`: cancelled): its
    /// result, or, on 2026-07-28, the questions it stopped at with the state of its next
    /// round.
    fn answer_of(
        &self,
        tool: &ToolInfo,
        outcome: Option<Outcome>,
        rounds: Option<&ask::Rounds>,
    ) -> rmcp::model::CallToolResponse {
        match (outcome, rounds) {
            (Some(Outcome::InputRequired(questions)), Some(rounds)) => {
                self.input_required(questions, &rounds.inquiry, &rounds.bound)
            }
            (Some(outcome), _) => outcome::tool_result(tool, outcome).into(),
            // Nothing is sent for a cancelled request: no way in writes this.
            (None, _) => error_result(
                ErrorKind::Failed,
                format!("tool '{}' was cancelled", tool.name()),
            )
            .into(),
        }
    }
}

impl Pipeline {
    /// The context of one invocation of `name` (a tool, a resource, a prompt) with `setup`:
    /// its own token (a timeout cancels it to stop a sync invocation, which concerns nothing
    /// else), its channel, progress token, log level and caller, and the server's states
    /// and resource notifications.
    pub(super) fn context(
        &self,
        name: crate::tool::ToolName,
        cancel: &CancellationToken,
        setup: CallSetup,
    ) -> CallContext {
        let mut context = CallContext::new(
            name,
            self.states.clone(),
            cancel.clone(),
            setup.sink,
            setup.progress,
            setup.level.unwrap_or_else(|| SessionLevel::fixed(None)),
            setup.caller,
        );
        context.per_request = setup.per_request;
        context.updates = self.updates.clone();
        context
    }
}
