//! The store replicas share: Redis (feature `redis`). A task is a hash, its lease a key of
//! its own that expires unless renewed, both in one hash slot (`{id}`), and every
//! transition out of `working` a Lua script, so that it is a compare-and-set.

use std::collections::HashMap;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

#[path = "redis_channel.rs"]
mod channel;
#[path = "redis_grants.rs"]
mod grants;
#[path = "redis_hash.rs"]
mod hash;
#[path = "redis_state.rs"]
mod state;

use self::hash::{SCRIPTS, Scripts, json, record, status_str};
use super::{Messages, StoreError, StoreFuture, TaskEnd, TaskProgress, TaskRecord, TaskStore};

/// Tasks kept in Redis, so that any replica behind a load balancer answers `tasks/get` and
/// `tasks/cancel` for a task another one runs: `--task-store redis://HOST:PORT/DB`
/// (`TOOLSMITH_TASK_STORE`), or [`Server::task_store`](crate::Server::task_store).
///
/// The connection is made at the first use and made again when lost; an operation that
/// fails is an error result of the call (or of `tasks/get`) that says so.
///
/// It keeps the sign-in state too ([`TaskStore::put`] and the rest) under
/// `toolsmith:task:state:`, each operation atomic across the replicas (`SET NX PX`,
/// `GETDEL`, a count's `INCR` and its window in one script).
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
        let key = format!("{}{kind}:{key}", self.prefix);
        state::set(&mut connection, &key, value, ttl, false).await
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

    /// The key of `key` in the sign-in state.
    fn state_key(&self, key: &str) -> String {
        format!("{}{}{key}", self.prefix, state::NAMESPACE)
    }

    /// The keys of task `id`: the task, its lease (one hash slot).
    fn keys(&self, id: &str) -> (String, String) {
        let task = format!("{}{{{id}}}", self.prefix);
        let lease = format!("{task}:lease");
        (task, lease)
    }
}

fn millis(duration: Duration) -> u64 {
    (duration.as_millis() as u64).max(1)
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

    fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            let kept: i64 = redis::cmd("PEXPIRE")
                .arg(self.state_key(key))
                .arg(ttl.as_millis().max(1) as u64)
                .query_async(&mut connection)
                .await
                .map_err(StoreError::new)?;
            Ok(kept == 1)
        })
    }

    fn publish<'a>(&'a self, channel: &'a str, message: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(self.send(channel, message))
    }

    fn listen<'a>(&'a self, channel: &'a str) -> StoreFuture<'a, Option<Messages>> {
        Box::pin(async move { self.subscribe(channel).await.map(Some) })
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            state::set(&mut connection, &self.state_key(key), value, ttl, false).await?;
            Ok(())
        })
    }

    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            state::set(&mut connection, &self.state_key(key), value, ttl, true).await
        })
    }

    fn read<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            state::get(&mut connection, &self.state_key(key), false).await
        })
    }

    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            state::get(&mut connection, &self.state_key(key), true).await
        })
    }

    fn count<'a>(&'a self, key: &'a str, window: Duration) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            state::count(&mut connection, &self.state_key(key), window).await
        })
    }

    fn scan<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, Vec<(String, String)>> {
        Box::pin(async move {
            let mut connection = self.connection().await?;
            let namespace = self.state_key("");
            state::scan(&mut connection, &namespace, prefix).await
        })
    }
}
