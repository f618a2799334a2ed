//! An upstream's own task, followed to its end: a call that the upstream answers with a task
//! (the tasks extension, which the gateway declares) is polled with `tasks/get` at the pace
//! the upstream asks for; its questions (`input_required`) are put to the client of the call
//! and answered with `tasks/update`; its end is the call's answer. A call the client gives
//! up on cancels the task (`tasks/cancel`).

use std::time::Duration;

use rmcp::RoleClient;
use rmcp::ServiceError;
use rmcp::model::{
    CallToolResult, CancelTaskParams, ContentBlock, CreateTaskResult, GetTaskParams,
    InputResponses, TaskPayload, UpdateTaskParams,
};
use rmcp::service::Peer;

use toolsmith::context::Elicit;

/// The pace of polling when the upstream names none, and the bounds of the one it names.
const POLL: Duration = Duration::from_millis(100);
const POLL_MIN: Duration = Duration::from_millis(10);
const POLL_MAX: Duration = Duration::from_secs(5);

/// Polls the task `created` at `peer` until it ends (its questions put through `elicit`): its
/// result, or an error result that says how it ended otherwise.
pub(crate) async fn follow(
    peer: &Peer<RoleClient>,
    created: CreateTaskResult,
    elicit: &Elicit,
) -> Result<CallToolResult, ServiceError> {
    let id = created.task.task_id.clone();
    let mut pace = paced(created.task.poll_interval_ms, POLL);
    let mut running = Running {
        peer: peer.clone(),
        id: Some(id.clone()),
    };
    loop {
        let got = peer.get_task(GetTaskParams::new(id.clone())).await?;
        // Each answer may name another pace: the latest one holds.
        pace = paced(got.task.task.poll_interval_ms, pace);
        match got.task.payload {
            TaskPayload::Working => tokio::time::sleep(pace).await,
            TaskPayload::InputRequired { input_requests } => {
                let mut answers = InputResponses::new();
                for (key, question) in input_requests {
                    match elicit.relay(question).await {
                        Ok(answer) => answers.insert(key, answer),
                        Err(err) => {
                            return Ok(ended(&format!(
                                "the upstream's task asked the client a question that got no answer: {err}"
                            )));
                        }
                    };
                }
                peer.update_task(UpdateTaskParams::new(id.clone(), answers))
                    .await?;
                // The upstream takes the answers in its own time: the questions are not
                // asked again at once.
                tokio::time::sleep(pace).await;
            }
            TaskPayload::Completed { result } => {
                running.id = None;
                return serde_json::from_value(serde_json::Value::Object(result))
                    .map_err(|_| ServiceError::UnexpectedResponse);
            }
            TaskPayload::Failed { error } => {
                running.id = None;
                let message = error
                    .get("message")
                    .and_then(|m| m.as_str())
                    .unwrap_or("no reason given");
                return Ok(ended(&format!("the upstream's task failed: {message}")));
            }
            TaskPayload::Cancelled => {
                running.id = None;
                return Ok(ended("the upstream cancelled its task"));
            }
            // A status this gateway does not know: asked again, as a working task is.
            _ => tokio::time::sleep(pace).await,
        }
    }
}

/// The pace an upstream names (`pollIntervalMs`) within bounds, else `otherwise`.
fn paced(named: Option<u64>, otherwise: Duration) -> Duration {
    named.map_or(otherwise, |ms| {
        Duration::from_millis(ms).clamp(POLL_MIN, POLL_MAX)
    })
}

/// A task not yet ended: cancelled at the upstream when dropped (the client gave up).
struct Running {
    peer: Peer<RoleClient>,
    id: Option<String>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let _ = peer.cancel_task(CancelTaskParams::new(id)).await;
        });
    }
}

/// The error result of a task that did not complete.
fn ended(why: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(why.to_owned())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pace_is_the_latest_one_named_within_bounds() {
        assert_eq!(paced(None, POLL), POLL);
        assert_eq!(paced(Some(250), POLL), Duration::from_millis(250));
        assert_eq!(
            paced(None, Duration::from_millis(250)),
            Duration::from_millis(250)
        );
        assert_eq!(paced(Some(1), POLL), POLL_MIN);
        assert_eq!(paced(Some(60_000), POLL), POLL_MAX);
    }
}
