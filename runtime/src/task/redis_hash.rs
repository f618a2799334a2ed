//! How a task is a Redis hash: the scripts that change it (each transition out of
//! `working` a compare-and-set) and the task its fields are read back as.

use std::collections::HashMap;

use redis::Script;

use crate::task::{StoreError, TaskRecord, TaskStatus};

/// The scripts of a task's transitions, loaded once per connection.
pub(super) struct Scripts {
    pub(super) create: Script,
    pub(super) get: Script,
    pub(super) renew: Script,
    pub(super) progress: Script,
    pub(super) finish: Script,
}

/// KEYS: the task, its lease. A task is working only while its lease lives.
const CREATE: &str = r"
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'tool', ARGV[2], 'status', 'working',
  'created', ARGV[3], 'updated', ARGV[3], 'ttl', ARGV[4], 'poll', ARGV[5])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[6] + ARGV[4])
return 1";

/// A working task whose lease is gone is failed first (ARGV: now, message, error).
const GET: &str = r"
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return false end
if status == 'working' and redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('HSET', KEYS[1], 'status', 'failed', 'message', ARGV[2], 'result', ARGV[3],
    'updated', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], redis.call('HGET', KEYS[1], 'ttl'))
end
return redis.call('HGETALL', KEYS[1])";

/// ARGV: the lease in milliseconds.
const RENEW: &str = r"
if redis.call('HGET', KEYS[1], 'status') ~= 'working' then return 0 end
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1] + redis.call('HGET', KEYS[1], 'ttl'))
return 1";

/// ARGV: the progress (JSON), its status message, now.
const PROGRESS: &str = r"
if redis.call('HGET', KEYS[1], 'status') ~= 'working' then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1], 'message', ARGV[2], 'updated', ARGV[3])
return 1";

/// ARGV: the status, its message ('' for none), the result (JSON, '' for none), now.
const FINISH: &str = r"
if redis.call('HGET', KEYS[1], 'status') ~= 'working' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated', ARGV[4])
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'message')
else redis.call('HSET', KEYS[1], 'message', ARGV[2]) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'result', ARGV[3]) end
redis.call('DEL', KEYS[2])
redis.call('PEXPIRE', KEYS[1], redis.call('HGET', KEYS[1], 'ttl'))
return 1";

pub(super) static SCRIPTS: std::sync::LazyLock<Scripts> = std::sync::LazyLock::new(|| Scripts {
    create: Script::new(CREATE),
    get: Script::new(GET),
    renew: Script::new(RENEW),
    progress: Script::new(PROGRESS),
    finish: Script::new(FINISH),
});

/// A status as the protocol spells it (`input_required`), as `record` reads it back.
pub(super) fn status_str(status: TaskStatus) -> String {
    match serde_json::to_value(status) {
        Ok(serde_json::Value::String(status)) => status,
        _ => unreachable!("a task status is a string"),
    }
}

pub(super) fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The task the fields of its hash say.
pub(super) fn record(
    id: &str,
    mut fields: HashMap<String, String>,
) -> Result<TaskRecord, StoreError> {
    let bad = |what: &str| StoreError::new(format!("task {id} has no valid `{what}` in Redis"));
    let mut take = |name: &str| fields.remove(name);
    let number = |value: Option<String>, name: &str| {
        value
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| bad(name))
    };
    let status = take("status").ok_or_else(|| bad("status"))?;
    let status =
        serde_json::from_value(serde_json::Value::String(status)).map_err(|_| bad("status"))?;
    // Progress is only shown: one that cannot be read is left out, never the task.
    let progress = take("progress").and_then(|text| serde_json::from_str(&text).ok());
    let result = match take("result") {
        Some(text) => Some(serde_json::from_str(&text).map_err(|_| bad("result"))?),
        None => None,
    };
    Ok(TaskRecord {
        id: id.to_owned(),
        owner: take("owner").ok_or_else(|| bad("owner"))?,
        tool: take("tool").ok_or_else(|| bad("tool"))?,
        status,
        message: take("message"),
        progress,
        result,
        created_ms: number(take("created"), "created")?,
        updated_ms: number(take("updated"), "updated")?,
        ttl_ms: number(take("ttl"), "ttl")?,
        poll_ms: number(take("poll"), "poll")?,
    })
}
