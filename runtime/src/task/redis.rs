//! The store replicas share: Redis (feature `redis`). A task is a hash, its lease a key of
//! its own that expires unless renewed, both in one hash slot (`{id}`), and every
//! transition out of `working` a Lua script, so that it is a compare-and-set.

use std::collections::HashMap;
use std::time::Duration;

use redis::Script;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

#[path = "redis_grants.rs"]
mod grants;

use super::{StoreError, StoreFuture, TaskEnd, TaskProgress, TaskRecord, TaskStatus, TaskStore};

/// Tasks kept in Redis, so that any replica behind a load balancer answers `tasks/get` and
/// `tasks/cancel` for a task another one runs: `--task-store redis://HOST:PORT/DB`
/// (`TOOLSMITH_TASK_STORE`), or [`Server::task_store`](crate::Server::task_store).
///
/// The connection is made at the first use and made again when lost; an operation that
/// fails is an error result of the call (or of `tasks/get`) that says so.
///
/// ```no_run
/// // no_run: needs a Redis server at 127.0.0.1:6379, and serves HTTP on port 8000.
/// use std::sync::Arc;
/// use toolsmith::task::RedisStore;
///
/// # async fn f() -> Result<(), toolsmith::Error> {
/// // Every replica behind the load balancer runs this, with the same Redis.
/// let store = RedisStore::open("redis://127.0.0.1:6379/0").expect("a redis:// URL");
/// toolsmith::Server::new()
///     .task_store(Arc::new(store))
///     .serve_http("0.0.0.0:8000")
///     .await
/// # }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    client: redis::Client,
    /// Made at the first use (and again by itself when lost).
    connection: std::sync::Arc<tokio::sync::OnceCell<ConnectionManager>>,
    prefix: String,
    scripts: &'static Scripts,
}

struct Scripts {
    create: Script,
    get: Script,
    renew: Script,
    progress: Script,
    finish: Script,
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

static SCRIPTS: std::sync::LazyLock<Scripts> = std::sync::LazyLock::new(|| Scripts {
    create: Script::new(CREATE),
    get: Script::new(GET),
    renew: Script::new(RENEW),
    progress: Script::new(PROGRESS),
    finish: Script::new(FINISH),
});

impl RedisStore {
    /// A store at `url` (`redis://HOST:PORT/DB`, `rediss://` for TLS is not built in),
    /// connected at its first use. Its keys start with `toolsmith:task:`.
    ///
    /// ```
    /// assert!(toolsmith::task::RedisStore::open("http://localhost").is_err());
    /// ```
    pub fn open(url: &str) -> Result<RedisStore, StoreError> {
        let client = redis::Client::open(url).map_err(StoreError::new)?;
        Ok(RedisStore {
            client,
            connection: std::sync::Arc::default(),
            prefix: "toolsmith:task:".to_owned(),
            scripts: &SCRIPTS,
        })
    }

    /// Keeps `value` under `{prefix}{kind}:{key}` for `ttl` (at least a millisecond: Redis
    /// refuses `PX 0`).
    async fn set(
        &self,
        kind: &str,
        key: &str,
        value: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        let mut connection = self.connection().await?;
        let _: () = redis::cmd("SET")
            .arg(format!("{}{kind}:{key}", self.prefix))
            .arg(value)
            .arg("PX")
            .arg(millis(ttl).max(1))
            .query_async(&mut connection)
            .await
            .map_err(StoreError::new)?;
        Ok(true)
    }

    /// The connection, made now if it is the first use.
    async fn connection(&self) -> Result<ConnectionManager, StoreError> {
        let connection = self
            .connection
            .get_or_try_init(|| {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(Duration::from_secs(5)))
                    .set_response_timeout(Some(Duration::from_secs(5)))
                    .set_number_of_retries(2);
                self.client.get_connection_manager_with_config(config)
            })
            .await
            .map_err(StoreError::new)?;
        Ok(connection.clone())
    }

    /// The same store with its keys under `prefix` instead (several servers, one Redis).
    ///
    /// ```no_run
    /// // no_run: needs a Redis server at 127.0.0.1:6379.
    /// use std::time::Duration;
    /// use toolsmith::task::{RedisStore, TaskRecord, TaskStore};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let notes = RedisStore::open("redis://127.0.0.1/").unwrap().prefix("notes:task:");
    /// let mail = RedisStore::open("redis://127.0.0.1/").unwrap().prefix("mail:task:");
    /// let task = TaskRecord::working("t1", "me", "import_notes", 60_000, 1_000, 0);
    /// notes.create(&task, Duration::from_secs(30)).await.unwrap();
    /// assert!(notes.get("t1", 0).await.unwrap().is_some());
    /// assert!(mail.get("t1", 0).await.unwrap().is_none(), "another prefix, other tasks");
    /// # }
    /// ```
    pub fn prefix(mut self, prefix: impl Into<String>) -> RedisStore {
        self.prefix = prefix.into();
        self
    }

    /// The keys of task `id`: the task, its lease (one hash slot).
    fn keys(&self, id: &str) -> (String, String) {
        let task = format!("{}{{{id}}}", self.prefix);
        let lease = format!("{task}:lease");
        (task, lease)
    }
}

/// A status as the protocol spells it (`input_required`), as `record` reads it back.
fn status_str(status: TaskStatus) -> String {
    match serde_json::to_value(status) {
        Ok(serde_json::Value::String(status)) => status,
        _ => unreachable!("a task status is a string"),
    }
}

fn millis(duration: Duration) -> u64 {
    (duration.as_millis() as u64).max(1)
}

fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The task the fields of its hash say.
fn record(id: &str, mut fields: HashMap<String, String>) -> Result<TaskRecord, StoreError> {
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

impl TaskStore for RedisStore {
    fn create<'a>(&'a self, task: &'a TaskRecord, lease: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (key, lease_key) = self.keys(&task.id);
            let mut connection = self.connection().await?;
            let _: i64 = self
                .scripts
                .create
                .key(key)
                .key(lease_key)
                .arg(&task.owner)
                .arg(&task.tool)
                .arg(task.created_ms)
                .arg(task.ttl_ms.max(1))
                .arg(task.poll_ms)
                .arg(millis(lease))
                .invoke_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let (key, lease_key) = self.keys(id);
            let mut connection = self.connection().await?;
            let stopped = super::stopped(now_ms);
            let fields: Option<HashMap<String, String>> = self
                .scripts
                .get
                .key(key)
                .key(lease_key)
                .arg(now_ms)
                .arg(super::STOPPED)
                .arg(json(&stopped.result))
                .invoke_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            fields.map(|fields| record(id, fields)).transpose()
        })
    }

    fn renew<'a>(&'a self, id: &'a str, lease: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let (key, lease_key) = self.keys(id);
            let mut connection = self.connection().await?;
            let working: i64 = self
                .scripts
                .renew
                .key(key)
                .key(lease_key)
                .arg(millis(lease))
                .invoke_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(working == 1)
        })
    }

    fn progress<'a>(
        &'a self,
        id: &'a str,
        progress: &'a TaskProgress,
        now_ms: u64,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let (key, lease_key) = self.keys(id);
            let mut connection = self.connection().await?;
            let _: i64 = self
                .scripts
                .progress
                .key(key)
                .key(lease_key)
                .arg(json(progress))
                .arg(progress.status_message())
                .arg(now_ms)
                .invoke_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(())
        })
    }

    fn finish<'a>(&'a self, id: &'a str, end: &'a TaskEnd) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let (key, lease_key) = self.keys(id);
            let mut connection = self.connection().await?;
            let result = end.result.as_ref().map(json).unwrap_or_default();
            let ended: i64 = self
                .scripts
                .finish
                .key(key)
                .key(lease_key)
                .arg(status_str(end.status))
                .arg(end.message.as_deref().unwrap_or(""))
                .arg(result)
                .arg(end.at_ms)
                .invoke_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(ended == 1)
        })
    }

    fn redeem<'a>(&'a self, digest: &'a str, ttl: Duration) -> StoreFuture<'a, Option<bool>> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            // Set only if absent, expiring with the state: the first use sets it.
            let set: Option<String> = redis::cmd("SET")
                .arg(format!("{}redeemed:{digest}", self.prefix))
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(millis(ttl).max(1))
                .query_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(Some(set.is_some()))
        })
    }

    fn remember<'a>(&'a self, key: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        self.remember_as(key, "1", ttl)
    }

    fn remember_as<'a>(
        &'a self,
        key: &'a str,
        description: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        Box::pin(self.set("grant", key, description, ttl))
    }

    fn remembered_all(&self) -> StoreFuture<'_, Vec<(String, String, u64)>> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            grants::listed(&mut connection, &self.prefix).await
        })
    }

    fn remembered<'a>(&'a self, key: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            let there: i64 = redis::cmd("EXISTS")
                .arg(format!("{}grant:{key}", self.prefix))
                .query_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(there == 1)
        })
    }

    fn hand_over<'a>(
        &'a self,
        key: &'a str,
        message: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        Box::pin(self.set("handed", key, message, ttl))
    }

    fn take_handed<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            // Taken once: the first replica to ask has it.
            let taken: Option<String> = redis::cmd("GETDEL")
                .arg(format!("{}handed:{key}", self.prefix))
                .query_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(taken)
        })
    }

    fn forget<'a>(&'a self, key: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            let gone: i64 = redis::cmd("DEL")
                .arg(format!("{}grant:{key}", self.prefix))
                .query_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(gone == 1)
        })
    }
}
