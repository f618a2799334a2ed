//! `serve`'s task flags: where tasks are kept, and for how long.

use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use crate::Server;
use crate::task::TaskStore;

/// Where tasks are kept, and for how long.
#[derive(Args, Debug, Default)]
pub(super) struct TaskArgs {
    /// Where tasks are kept: `memory` (this process, the default) or `redis://HOST:PORT/DB`
    /// (shared by replicas behind a load balancer; needs the `redis` feature).
    #[arg(long, value_name = "URL", value_parser = store, env = "TOOLSMITH_TASK_STORE")]
    task_store: Option<StoreArg>,
    /// How long an ended task's result is kept, in seconds (default 3600).
    #[arg(long, value_name = "SECS", value_parser = super::state::ttl, env = "TOOLSMITH_TASK_TTL")]
    task_ttl: Option<Duration>,
    /// How long a running task's lease lasts, in seconds (default 30): a task whose server
    /// stopped renewing it is failed once it runs out.
    #[arg(long, value_name = "SECS", value_parser = super::state::ttl, env = "TOOLSMITH_TASK_LEASE")]
    task_lease: Option<Duration>,
    /// How often clients are told to poll a task, in milliseconds (default 1000); a run
    /// looks for a cancel made on another replica as often.
    #[arg(long, value_name = "MS", value_parser = millis, env = "TOOLSMITH_TASK_POLL_MS")]
    task_poll_ms: Option<Duration>,
    /// How many tasks this process runs at once, of all callers (default 1000); past it a
    /// call that would start one is refused.
    #[arg(long, value_name = "N", env = "TOOLSMITH_MAX_TASKS")]
    max_tasks: Option<usize>,
    /// How many tasks one caller may have running on this process at once (default 100).
    #[arg(long, value_name = "N", env = "TOOLSMITH_MAX_TASKS_PER_CALLER")]
    max_tasks_per_caller: Option<usize>,
}

/// A `--task-store` as given.
#[derive(Clone)]
pub(super) struct StoreArg(Option<Arc<dyn TaskStore>>);

impl StoreArg {
    /// The shared store given (`None` for `memory`).
    pub(super) fn shared(&self) -> Option<Arc<dyn TaskStore>> {
        self.0.clone()
    }
}

impl std::fmt::Debug for StoreArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "redis" } else { "memory" })
    }
}

pub(super) fn store(value: &str) -> Result<StoreArg, String> {
    let value = value.trim();
    if value == "memory" {
        return Ok(StoreArg(None));
    }
    if value.starts_with("redis://") || value.starts_with("rediss://") {
        #[cfg(feature = "redis")]
        {
            let store = crate::task::RedisStore::open(value).map_err(|e| e.to_string())?;
            return Ok(StoreArg(Some(Arc::new(store))));
        }
        #[cfg(not(feature = "redis"))]
        return Err(
            "a Redis store needs toolsmith's `redis` feature: build with it, or use `memory`"
                .to_owned(),
        );
    }
    Err("expected `memory` or a redis://HOST:PORT/DB URL".to_owned())
}

fn millis(value: &str) -> Result<Duration, String> {
    match value.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err("expected a whole number of milliseconds above zero, e.g. 500".to_owned()),
    }
}

impl TaskArgs {
    /// The task store given (`--task-store`), if any.
    #[cfg_attr(not(feature = "webhook"), allow(dead_code))]
    pub(super) fn store(&self) -> Option<Arc<dyn TaskStore>> {
        match &self.task_store {
            Some(StoreArg(Some(store))) => Some(store.clone()),
            _ => None,
        }
    }

    /// `server` with these settings.
    pub(super) fn apply(&self, mut server: Server) -> Server {
        if let Some(StoreArg(Some(store))) = &self.task_store {
            server = server.task_store(store.clone());
        }
        if let Some(ttl) = self.task_ttl {
            server = server.task_ttl(ttl);
        }
        if let Some(lease) = self.task_lease {
            server = server.task_lease(lease);
        }
        if let Some(every) = self.task_poll_ms {
            server = server.task_poll_interval(every);
        }
        if let Some(max) = self.max_tasks {
            server = server.max_tasks(max);
        }
        if let Some(max) = self.max_tasks_per_caller {
            server = server.max_tasks_per_caller(max);
        }
        server
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_store_is_memory_or_a_redis_url() {
        assert!(super::store("memory").unwrap().0.is_none());
        let err = super::store("postgres://x").unwrap_err();
        assert!(err.contains("redis://"), "{err}");
        #[cfg(not(feature = "redis"))]
        assert!(
            super::store("redis://127.0.0.1/")
                .unwrap_err()
                .contains("`redis` feature")
        );
        #[cfg(feature = "redis")]
        assert!(super::store("redis://127.0.0.1/").unwrap().0.is_some());
    }
}
