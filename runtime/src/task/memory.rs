//! The default store: this process's memory (one process, stdio, or tests).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{StoreFuture, TaskEnd, TaskProgress, TaskRecord, TaskStatus, TaskStore, apply_end};

/// Tasks kept in this process's memory: for one process. Replicas behind a load balancer
/// need a store they share ([`RedisStore`](super::RedisStore), feature `redis`). Ended
/// tasks are dropped once their TTL ran out (looked at on every operation).
///
/// ```
/// let store = toolsmith::task::MemoryStore::new();
/// assert_eq!(store.len(), 0);
/// ```
#[derive(Default)]
pub struct MemoryStore {
    tasks: Mutex<Tasks>,
    state: Mutex<HashMap<String, (String, Instant)>>,
}

#[derive(Default)]
struct Tasks {
    by_id: HashMap<String, Entry>,
    /// When the ended tasks were last looked over (at most once a second).
    swept: Option<Instant>,
}

struct Entry {
    record: TaskRecord,
    /// While working: until when its run is known to be alive.
    lease: Instant,
    /// Once ended: until when it is kept.
    keep: Option<Instant>,
}

impl MemoryStore {
    /// An empty store.
    ///
    /// ```
    /// let store = toolsmith::task::MemoryStore::new();
    /// assert!(store.is_empty());
    /// ```
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// How many tasks it keeps (ended ones whose TTL ran out are not counted).
    ///
    /// ```
    /// assert_eq!(toolsmith::task::MemoryStore::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        let mut tasks = self.lock();
        tasks.swept = None;
        sweep(&mut tasks);
        tasks.by_id.len()
    }

    /// Whether it keeps no task.
    ///
    /// ```
    /// assert!(toolsmith::task::MemoryStore::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tasks> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the tasks (one past its TTL is not there), now and then once those past
    /// their TTL are dropped.
    fn with<T>(&self, f: impl FnOnce(&mut HashMap<String, Entry>) -> T) -> T {
        let mut tasks = self.lock();
        sweep(&mut tasks);
        f(&mut tasks.by_id)
    }
}

/// Task `id`, unless its TTL ran out (then it is dropped now).
fn live<'a>(tasks: &'a mut HashMap<String, Entry>, id: &str) -> Option<&'a mut Entry> {
    if tasks
        .get(id)
        .is_some_and(|entry| entry.keep.is_some_and(|keep| keep <= Instant::now()))
    {
        tasks.remove(id);
    }
    tasks.get_mut(id)
}

/// Drops the ended tasks whose TTL ran out, at most once a second.
fn sweep(tasks: &mut Tasks) {
    let now = Instant::now();
    if tasks
        .swept
        .is_some_and(|swept| now.duration_since(swept) < Duration::from_secs(1))
    {
        return;
    }
    tasks.swept = Some(now);
    tasks
        .by_id
        .retain(|_, entry| entry.keep.is_none_or(|keep| keep > now));
}

fn ready<'a, T: Send + 'a>(value: T) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(Ok(value)))
}

/// Ends `entry` as `end` says, kept for its TTL from now.
fn end(entry: &mut Entry, end: &TaskEnd) {
    apply_end(&mut entry.record, end);
    entry.keep = Some(Instant::now() + Duration::from_millis(entry.record.ttl_ms));
}

impl TaskStore for MemoryStore {
    fn create<'a>(&'a self, task: &'a TaskRecord, lease: Duration) -> StoreFuture<'a, ()> {
        self.with(|tasks| {
            tasks.insert(
                task.id.clone(),
                Entry {
                    record: task.clone(),
                    lease: Instant::now() + lease,
                    keep: None,
                },
            )
        });
        ready(())
    }

    fn get<'a>(&'a self, id: &'a str, now_ms: u64) -> StoreFuture<'a, Option<TaskRecord>> {
        let record = self.with(|tasks| {
            let entry = live(tasks, id)?;
            if entry.record.status == TaskStatus::Working && entry.lease <= Instant::now() {
                end(entry, &super::stopped(now_ms));
            }
            Some(entry.record.clone())
        });
        ready(record)
    }

    fn renew<'a>(&'a self, id: &'a str, lease: Duration) -> StoreFuture<'a, bool> {
        let working = self.with(|tasks| match live(tasks, id) {
            Some(entry) if entry.record.status == TaskStatus::Working => {
                entry.lease = Instant::now() + lease;
                true
            }
            _ => false,
        });
        ready(working)
    }

    fn progress<'a>(
        &'a self,
        id: &'a str,
        progress: &'a TaskProgress,
        now_ms: u64,
    ) -> StoreFuture<'a, ()> {
        self.with(|tasks| {
            if let Some(entry) = live(tasks, id)
                && entry.record.status == TaskStatus::Working
            {
                entry.record.message = Some(progress.status_message());
                entry.record.progress = Some(progress.clone());
                entry.record.updated_ms = now_ms;
            }
        });
        ready(())
    }

    fn finish<'a>(&'a self, id: &'a str, ending: &'a TaskEnd) -> StoreFuture<'a, bool> {
        let ended = self.with(|tasks| match live(tasks, id) {
            Some(entry) if entry.record.status == TaskStatus::Working => {
                end(entry, ending);
                true
            }
            _ => false,
        });
        ready(ended)
    }

    fn put<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, ()> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.insert(key.to_owned(), (value.to_owned(), Instant::now() + ttl));
        ready(())
    }

    fn put_new<'a>(&'a self, key: &'a str, value: &'a str, ttl: Duration) -> StoreFuture<'a, bool> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if state.get(key).is_some_and(|(_, until)| *until > now) {
            return ready(false);
        }
        state.insert(key.to_owned(), (value.to_owned(), now + ttl));
        ready(true)
    }

    fn read<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        ready(
            state
                .get(key)
                .filter(|(_, until)| *until > now)
                .map(|(v, _)| v.clone()),
        )
    }

    fn take<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<String>> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        ready(
            state
                .remove(key)
                .filter(|(_, until)| *until > now)
                .map(|(v, _)| v),
        )
    }

    fn count<'a>(&'a self, key: &'a str, window: Duration) -> StoreFuture<'a, u64> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let entry = state
            .entry(key.to_owned())
            .or_insert(("0".to_owned(), now + window));
        if entry.1 <= now {
            *entry = ("0".to_owned(), now + window);
        }
        let n = entry.0.parse::<u64>().unwrap_or(0) + 1;
        entry.0 = n.to_string();
        ready(n)
    }

    fn scan<'a>(&'a self, prefix: &'a str) -> StoreFuture<'a, Vec<(String, String)>> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        ready(
            state
                .iter()
                .filter(|(k, (_, until))| k.starts_with(prefix) && *until > now)
                .map(|(k, (v, _))| (k.clone(), v.clone()))
                .take(10_000)
                .collect(),
        )
    }
}
