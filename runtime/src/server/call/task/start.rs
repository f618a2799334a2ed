//! A call of a tool that declares `task`: from a client with the extension, the task is
//! made (once its arguments are good and the user confirmed), its run started, and its handle
//! answered; from any other client, an ordinary call, or a refusal for `task = "required"`.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolResponse, ClientCapabilities, CreateTaskResult, ErrorData, NumberOrString,
    ProgressToken, RequestMetaObject,
};

use super::poll::{owner_of, task_of};
use crate::context::CallContext;
use crate::context::{ChannelError, ClientChannel, Notice, NoticeSink, Reply, declined};
use crate::request::ToolCall;
use crate::server::call::ask::Clearance;
use crate::server::call::engine::{self, Callee};
use crate::server::call::log::CallLog;
use crate::server::call::outcome::{error_result, tool_result};
use crate::server::call::{CallReply, CallSetup, Pipeline};
use crate::task::{TaskProgress, TaskRecord, now_ms};
use crate::{error::ErrorKind, tool::TaskSupport, tool::ToolInfo};

/// A task's id: 128 random bits, so that nobody guesses another's.
fn new_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether a call of `tool` is answered with a task's handle.
pub(in crate::server::call) fn runs_as_task(
    tool: &ToolInfo,
    meta: Option<&RequestMetaObject>,
    setup: &CallSetup,
) -> bool {
    tool.task() != TaskSupport::Never && declares_tasks(meta, setup)
}

/// Whether the client declared the tasks extension: in the request's `_meta` (2026-07-28),
/// else in its session's `initialize`.
fn declares_tasks(meta: Option<&RequestMetaObject>, setup: &CallSetup) -> bool {
    if let Some(capabilities) = meta.and_then(|meta| meta.client_capabilities()) {
        return capabilities.supports_tasks();
    }
    setup
        .sink
        .as_ref()
        .and_then(|sink| sink.capabilities())
        .is_some_and(|capabilities| capabilities.supports_tasks())
}

/// The refusal of a call of a `task = "required"` tool from a client without tasks.
fn tasks_required(tool: &str) -> ErrorData {
    let required = ClientCapabilities::builder().enable_tasks().build();
    let mut error = ErrorData::missing_required_client_capability(required);
    error.message = format!(
        "tool '{tool}' runs only as a task: the client must declare the tasks extension ({}) in its capabilities",
        rmcp::model::TASKS_EXTENSION_ID
    )
    .into();
    error
}

/// A task's channel: its last progress, which its run writes to the store at each renewal;
/// it cannot ask the client anything.
#[derive(Default)]
pub(crate) struct TaskChannel {
    latest: Mutex<Option<TaskProgress>>,
}

impl TaskChannel {
    /// The progress reported since the last call, if any.
    pub(super) fn take(&self) -> Option<TaskProgress> {
        self.latest.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl NoticeSink for TaskChannel {
    fn notify(&self, notice: Notice) {
        // (JSON has no NaN or infinity: such a report is not kept.)
        if let Notice::Progress(param) = notice
            && param.progress.is_finite()
            && param.total.is_none_or(f64::is_finite)
        {
            *self.latest.lock().unwrap_or_else(|e| e.into_inner()) = Some(TaskProgress {
                progress: param.progress,
                total: param.total,
                message: param.message,
            });
        }
    }
}

impl ClientChannel for TaskChannel {
    fn capabilities(&self) -> Option<Arc<ClientCapabilities>> {
        None
    }

    fn request(&self, _: rmcp::model::ServerRequest) -> Reply {
        declined(ChannelError::Unsupported(
            "a tool running as a task cannot ask its client: it has no request to ask on",
        ))
    }
}

impl Pipeline {
    /// Steps 3 to 6 of a call of a tool that declares `task`: a task for a client that
    /// declared the extension, else an ordinary call (or, `task = "required"`, a refusal).
    pub(in crate::server::call) fn dispatch_task(
        &self,
        call: ToolCall,
        log: CallLog,
    ) -> BoxFuture<'_, CallReply> {
        // The client did not declare the extension: the call runs as any other.
        if !call.as_task {
            if call.tool.task() == TaskSupport::Required {
                let answer = Err(tasks_required(call.tool.name()));
                log.finish(call.tool.name(), &answer);
                return Box::pin(std::future::ready(answer));
            }
            return Box::pin(self.dispatch_now(call, log));
        }
        Box::pin(async move {
            let name = call.tool.shared_name().clone();
            let answer = self.start_task(call, log.traced()).await;
            log.finish(&name, &answer);
            answer
        })
    }

    /// Makes the task and starts its run; the answer is its handle, or why the call ended
    /// first (invalid arguments, a confirmation refused or to ask, the store failing).
    async fn start_task(&self, call: ToolCall, span: tracing::Span) -> CallReply {
        let ToolCall {
            tool,
            arguments,
            setup,
            retry,
            cancel,
            ..
        } = call;
        let (clearance, rounds) = match self.plan(&tool, arguments.as_ref(), retry, &setup, &span) {
            Some(plan) => (plan.clearance, plan.rounds),
            None => (Clearance::Open, None),
        };
        let Ok(id) = new_id() else {
            return Ok(error_result(
                ErrorKind::Failed,
                "the system has no randomness for a task's id: it did not run".to_owned(),
            )
            .into());
        };
        let tasks = self.tasks.clone();
        let token = tasks.stopping.child_token();
        let channel = Arc::new(TaskChannel::default());
        let owner = owner_of(&setup.caller);
        let context = self.context(
            tool.shared_name().clone(),
            &token,
            CallSetup {
                progress: Some(ProgressToken(NumberOrString::String(id.clone().into()))),
                level: None,
                sink: Some(channel.clone()),
                per_request: setup.per_request,
                caller: setup.caller,
                confirmed: false,
                session: setup.session,
                transport: setup.transport,
                version: setup.version,
                trace: None,
            },
        );
        // The arguments are decoded first: invalid ones are refused on the call itself.
        let timeout = tool.timeout();
        let name = tool.shared_name().clone();
        let callee = Callee::tool(&tool, &name);
        let invoke = |context: &CallContext| tool.invoke(arguments, context);
        let invocation = match engine::invocation(invoke, &context) {
            Ok(invocation) => invocation,
            Err(outcome) => return Ok(tool_result(&tool, outcome).into()),
        };
        // Then the confirmation, on the call.
        match clearance {
            Clearance::Open => {}
            Clearance::Shut(outcome) => {
                return Ok(self.answer_of(&tool, Some(*outcome), rounds.as_deref()));
            }
            Clearance::Asking(asking) => {
                // Under the tool's timeout, as on an ordinary call (the clearance itself waits no
                // longer than a request state lives).
                let asked = async move {
                    let Some(timeout) = timeout else {
                        return asking.await;
                    };
                    let wait = std::time::Duration::from_millis(timeout.millis);
                    tokio::time::timeout(wait, asking)
                        .await
                        .unwrap_or_else(|_| Some(engine::unanswered(callee, timeout)))
                };
                let refused = tokio::select! {
                    refused = asked => refused.map(Some),
                    () = cancel.cancelled() => Some(None),
                };
                if let Some(outcome) = refused {
                    return Ok(self.answer_of(&tool, outcome, rounds.as_deref()));
                }
            }
        }
        // Within the caps of this process, before the store hears of it.
        let admitted = match tasks.admit(&id, &owner, token.clone(), channel.clone()) {
            Ok(admitted) => admitted,
            Err(full) => {
                tracing::info!(tool = tool.name(), ?full, "task refused: too many running");
                return Ok(error_result(ErrorKind::Refused, full.message(tool.name())).into());
            }
        };
        let record = TaskRecord::working(
            id.clone(),
            owner,
            tool.name(),
            tasks.ttl.as_millis() as u64,
            tasks.poll.as_millis() as u64,
            now_ms(),
        );
        if let Err(err) = tasks.store.create(&record, tasks.lease).await {
            return Ok(error_result(
                ErrorKind::Failed,
                format!(
                    "tool '{}' could not start as a task ({err}): it did not run",
                    tool.name()
                ),
            )
            .into());
        }
        let pool = self.pool.clone();
        let runs = tasks.runs.clone();
        let cancel = token.clone();
        let slots = tasks.limit.as_ref().and_then(|limit| limit.slots_of(&tool));
        let name = name.clone();
        let place = tool.place().clone();
        let run = async move {
            let callee = Callee {
                kind: "tool",
                name: &name,
                place: Some(&place),
            };
            // A tool with `max_concurrency` runs once one of its slots is free (the task
            // stays `working` meanwhile, and may be cancelled).
            let _slot = match slots {
                None => None,
                Some((_, slots)) => tokio::select! {
                    slot = slots.acquire_owned() => slot.ok(),
                    () = cancel.cancelled() => return None,
                },
            };
            engine::run(
                callee,
                move |_| invocation,
                timeout,
                context,
                cancel,
                &pool,
                Clearance::Open,
            )
            .await
        };
        runs.spawn(tasks.run(id, tool, run, channel, admitted));
        Ok(CallToolResponse::Task(CreateTaskResult::new(task_of(
            &record,
        ))))
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{NumberOrString, ProgressNotificationParam, ProgressToken};

    use super::TaskChannel;
    use crate::context::{Notice, NoticeSink};

    fn report(channel: &TaskChannel, done: f64, total: Option<f64>) {
        let token = ProgressToken(NumberOrString::Number(1));
        let mut param = ProgressNotificationParam::new(token, done);
        param.total = total;
        channel.notify(Notice::Progress(param));
    }

    #[test]
    fn a_task_keeps_its_last_finite_progress() {
        let channel = TaskChannel::default();
        assert_eq!(channel.take(), None);
        report(&channel, 1.0, Some(4.0));
        report(&channel, 2.0, Some(4.0));
        report(&channel, f64::NAN, Some(4.0));
        report(&channel, 3.0, Some(f64::INFINITY));
        let kept = channel.take().unwrap();
        assert_eq!(
            (kept.progress, kept.total),
            (2.0, Some(4.0)),
            "JSON has no NaN"
        );
        assert_eq!(channel.take(), None, "taken once");
    }
}
