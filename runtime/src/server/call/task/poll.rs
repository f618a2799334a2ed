//! `tasks/get`, `tasks/cancel` and `tasks/update`, on any replica: what the store says of a
//! task, for the caller who started it, as the protocol says a task.

use rmcp::model::{
    DetailedTask, ErrorCode, ErrorData, GetTaskResult, JsonObject, MetaObject, Task, TaskPayload,
};
use serde_json::json;

use super::{PROGRESS_META, Tasks};
use crate::context::Caller;
use crate::server::call::Pipeline;
use crate::task::{TaskEnd, TaskRecord, TaskStatus, error_object, now_ms};

impl Pipeline {
    /// `tasks/get`: the task, when `caller` started it and may still use its tool.
    pub(crate) async fn get_task(
        &self,
        id: &str,
        caller: &Caller,
    ) -> Result<GetTaskResult, ErrorData> {
        let record = self.usable_task(id, caller).await?;
        let mut result = GetTaskResult::new(detailed(&record));
        if let Some(progress) = &record.progress {
            let mut meta = JsonObject::new();
            meta.insert(PROGRESS_META.into(), json!(progress));
            result.meta = Some(MetaObject(meta));
        }
        Ok(result)
    }

    /// `tasks/cancel`: a working task is cancelled at once (its run stops, here at once,
    /// elsewhere at its next renewal); an ended one stays as it ended.
    pub(crate) async fn cancel_task(&self, id: &str, caller: &Caller) -> Result<(), ErrorData> {
        let record = self.usable_task(id, caller).await?;
        if !record.ended() {
            let end = TaskEnd {
                status: TaskStatus::Cancelled,
                message: Some("cancelled by the client".to_owned()),
                result: None,
                at_ms: now_ms(),
            };
            self.tasks
                .store
                .finish(id, &end)
                .await
                .map_err(store_failed)?;
        }
        self.tasks.stop_run(id);
        Ok(())
    }

    /// `tasks/update`: no task of toolsmith's waits for input, so there is nothing to
    /// answer; known to its caller, it is acknowledged.
    pub(crate) async fn update_task(&self, id: &str, caller: &Caller) -> Result<(), ErrorData> {
        // Answers to no outstanding question are ignored (SEP-2663): there is none.
        self.usable_task(id, caller).await.map(drop)
    }

    /// Task `id`, if `caller` started it and, with authorization, its token grants what the
    /// task's tool needs (as calling it would: the HTTP edge refuses first, with 403).
    async fn usable_task(&self, id: &str, caller: &Caller) -> Result<TaskRecord, ErrorData> {
        let record = self.tasks.owned(id, caller).await?;
        #[cfg(feature = "auth")]
        if let Some(refused) = self.refuse_task(&record.tool, id, caller) {
            return Err(refused);
        }
        Ok(record)
    }
}

impl Tasks {
    /// Task `id`, if `caller` started it: anyone else is told it does not exist.
    pub(crate) async fn owned(&self, id: &str, caller: &Caller) -> Result<TaskRecord, ErrorData> {
        // (No task has an empty id: one is never looked up.)
        let record = match id.is_empty() {
            true => None,
            false => self.store.get(id, now_ms()).await.map_err(store_failed)?,
        };
        match record {
            Some(record) if record.owner == owner_of(caller) => Ok(record),
            _ => Err(ErrorData::invalid_params(
                format!("task not found: {id} (unknown, expired, or started by someone else)"),
                None,
            )),
        }
    }
}

/// Who may see a task: its caller's [identity](Caller::identity) (anonymous, or a token's
/// issuer and subject, else its client, else the token itself).
pub(super) fn owner_of(caller: &Caller) -> String {
    caller.identity().to_owned()
}

/// An ISO 8601 time of `ms` since the Unix epoch.
fn iso(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(ms as i64)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The task as the protocol says it: its TTL counts from its creation, to its end (or now)
/// and the time it is kept after.
pub(super) fn task_of(record: &TaskRecord) -> Task {
    let last = if record.ended() {
        record.updated_ms
    } else {
        now_ms()
    };
    let mut task = Task::new(
        record.id.clone(),
        record.status,
        iso(record.created_ms),
        iso(record.updated_ms),
    )
    .with_ttl_ms(last.saturating_sub(record.created_ms) + record.ttl_ms)
    .with_poll_interval_ms(record.poll_ms);
    task.status_message = record.message.clone();
    task
}

fn detailed(record: &TaskRecord) -> DetailedTask {
    let payload = match (record.status, &record.result) {
        (TaskStatus::Completed, Some(result)) => TaskPayload::Completed {
            result: result.clone(),
        },
        (TaskStatus::Failed, error) => TaskPayload::Failed {
            error: error.clone().unwrap_or_else(|| {
                error_object(
                    ErrorCode::INTERNAL_ERROR.0,
                    record.message.as_deref().unwrap_or("failed"),
                )
            }),
        },
        (TaskStatus::Cancelled, _) => TaskPayload::Cancelled,
        _ => TaskPayload::Working,
    };
    DetailedTask::new(task_of(record), payload)
}

fn store_failed(err: crate::task::StoreError) -> ErrorData {
    ErrorData::internal_error(err.to_string(), None)
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::owner_of;
    use crate::context::Caller;

    fn caller(subject: &str, claims: Value) -> Caller {
        let Value::Object(claims) = claims else {
            unreachable!()
        };
        Caller::new(subject, ["tools:read"]).with_claims(claims)
    }

    #[test]
    fn a_task_belongs_to_an_issuer_and_subject_or_a_subjectless_client() {
        assert_eq!(owner_of(&Caller::anonymous()), "anonymous");
        let alice = caller("alice", json!({"iss": "https://a", "azp": "app-1"}));
        let alice_elsewhere = caller("alice", json!({"iss": "https://a", "azp": "app-2"}));
        assert_eq!(
            owner_of(&alice),
            owner_of(&alice_elsewhere),
            "the subject's, any client"
        );
        assert_ne!(
            owner_of(&alice),
            owner_of(&caller("alice", json!({"iss": "https://b"})))
        );
        assert_ne!(
            owner_of(&alice),
            owner_of(&caller("bob", json!({"iss": "https://a"})))
        );
        // Tokens without a subject are their clients'.
        let one = caller("", json!({"iss": "https://a", "azp": "svc-1"}));
        let two = caller("", json!({"iss": "https://a", "client_id": "svc-2"}));
        assert_ne!(owner_of(&one), owner_of(&two));
        assert_ne!(
            owner_of(&one),
            owner_of(&caller("", Value::Object(Map::new())))
        );
    }
}
