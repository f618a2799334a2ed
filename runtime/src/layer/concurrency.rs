//! [`ConcurrencyLimit`]: at most so many calls of a tool run at once, as
//! `#[tool(max_concurrency = N)]` says (the server puts this layer innermost by itself when
//! a tool declares it), or as [`ConcurrencyLimit::default_limit`] says for every other
//! tool. A call past the limit waits for a slot up to its tool's timeout, then is answered
//! as timed out without running; without a timeout it waits until a slot frees, or until
//! the client cancels it.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::Semaphore;

use super::{Call, CallOutcome, Reply};
use crate::error::ErrorKind;

/// The layer. Built into the server for the tools that declare `max_concurrency`; add it
/// yourself to limit every tool.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::time::Duration;
/// use toolsmith::{Registry, Server, layer::ConcurrencyLimit, testing::Client};
///
/// static RUNNING: AtomicUsize = AtomicUsize::new(0);
///
/// /// Scans the index; says how many calls of it were running then.
/// #[toolsmith::tool(read_only, closed_world)]
/// async fn scan_limited_index() -> usize {
///     let running = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
///     tokio::time::sleep(Duration::from_millis(50)).await;
///     RUNNING.fetch_sub(1, Ordering::SeqCst);
///     running
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// // At most 1 call of each tool at once, or what a tool declares.
/// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
///     .layer(ConcurrencyLimit::new().default_limit(1));
/// let (a, b) = (Client::connect(server.clone()).await.unwrap(), Client::connect(server).await.unwrap());
/// let none = serde_json::json!({});
/// let (first, second) = tokio::join!(a.call("scan_limited_index", none.clone()), b.call("scan_limited_index", none));
/// assert_eq!([first.unwrap().text(), second.unwrap().text()], ["1", "1"], "one after the other");
/// # }
/// ```
#[derive(Clone, Default)]
pub struct ConcurrencyLimit {
    default: Option<u32>,
    slots: Arc<Mutex<HashMap<crate::tool::ToolName, Arc<Semaphore>>>>,
}

impl ConcurrencyLimit {
    /// Each tool's own `max_concurrency`, and no limit for the others.
    ///
    /// ```
    /// use std::sync::LazyLock;
    /// use std::time::Duration;
    /// use toolsmith::{Registry, Server, layer::ConcurrencyLimit, testing::Client};
    ///
    /// static GATE: LazyLock<tokio::sync::Barrier> = LazyLock::new(|| tokio::sync::Barrier::new(2));
    ///
    /// /// Waits at the gate for another call, at most 5 s.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// async fn meet_unlimited_caller() -> String {
    ///     let met = tokio::time::timeout(Duration::from_secs(5), GATE.wait()).await;
    ///     if met.is_ok() { "met".into() } else { "alone".into() }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// // The tool declares no max_concurrency: its calls run at once.
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .layer(ConcurrencyLimit::new());
    /// let (a, b) = (Client::connect(server.clone()).await.unwrap(), Client::connect(server).await.unwrap());
    /// let none = serde_json::json!({});
    /// let (one, other) = tokio::join!(a.call("meet_unlimited_caller", none.clone()), b.call("meet_unlimited_caller", none));
    /// assert_eq!([one.unwrap().text(), other.unwrap().text()], ["met", "met"]);
    /// # }
    /// ```
    pub fn new() -> Self {
        ConcurrencyLimit::default()
    }

    /// At most `calls` at once of every tool that does not declare its own.
    ///
    /// ```
    /// use std::sync::LazyLock;
    /// use std::time::Duration;
    /// use toolsmith::{Registry, Server, layer::ConcurrencyLimit, testing::Client};
    ///
    /// static GATE: LazyLock<tokio::sync::Barrier> = LazyLock::new(|| tokio::sync::Barrier::new(2));
    ///
    /// /// Waits at the gate for another call, at most 5 s.
    /// #[toolsmith::tool(read_only, closed_world, max_concurrency = 2)]
    /// async fn meet_own_limit_caller() -> String {
    ///     let met = tokio::time::timeout(Duration::from_secs(5), GATE.wait()).await;
    ///     if met.is_ok() { "met".into() } else { "alone".into() }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// // One call at a time, except for a tool that declares its own limit (2 here).
    /// let server = Server::with_registry(Registry::from_module(module_path!()).unwrap())
    ///     .layer(ConcurrencyLimit::new().default_limit(1));
    /// let (a, b) = (Client::connect(server.clone()).await.unwrap(), Client::connect(server).await.unwrap());
    /// let none = serde_json::json!({});
    /// let (one, other) = tokio::join!(a.call("meet_own_limit_caller", none.clone()), b.call("meet_own_limit_caller", none));
    /// assert_eq!([one.unwrap().text(), other.unwrap().text()], ["met", "met"]);
    /// # }
    /// ```
    pub fn default_limit(mut self, calls: u32) -> Self {
        self.default = Some(calls.max(1));
        self
    }

    /// The slots of `tool`, when it has a limit: how many, and the semaphore.
    pub(crate) fn slots_of(&self, tool: &crate::tool::ToolInfo) -> Option<(u32, Arc<Semaphore>)> {
        let limit = tool.max_concurrency().or(self.default)?;
        Some((limit, self.slots(tool.shared_name(), limit)))
    }

    /// The slots of the tool named `name` with a limit of `limit`.
    fn slots(&self, name: &crate::tool::ToolName, limit: u32) -> Arc<Semaphore> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slots) = slots.get(name) {
            return slots.clone();
        }
        slots
            .entry(name.clone())
            .or_insert_with(|| Arc::new(Semaphore::new(limit as usize)))
            .clone()
    }
}

impl<S> tower::Layer<S> for ConcurrencyLimit {
    type Service = Concurrent<S>;

    fn layer(&self, inner: S) -> Concurrent<S> {
        Concurrent {
            limit: self.clone(),
            inner,
        }
    }
}

/// A service behind a [`ConcurrencyLimit`].
#[derive(Clone)]
pub struct Concurrent<S> {
    limit: ConcurrencyLimit,
    inner: S,
}

impl<S> tower::Service<Call> for Concurrent<S>
where
    S: tower::Service<Call, Response = CallOutcome, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = CallOutcome;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<CallOutcome, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        // A read or a prompt has no limit; a task is made at once, its run waiting for the
        // slot (`server/call/task/`).
        let tool = match call.tool() {
            Some(tool) if !call.runs_as_task() => tool,
            _ => return Box::pin(self.inner.call(call)),
        };
        let Some((limit, slots)) = self.limit.slots_of(tool) else {
            return Box::pin(self.inner.call(call));
        };
        // The service was made ready for this call; a clone waits in its place.
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        let timeout = tool.timeout();
        let name = tool.shared_name().clone();
        Box::pin(async move {
            let wait = slots.acquire_owned();
            let permit = match timeout {
                None => wait.await,
                Some(timeout) => {
                    match tokio::time::timeout(Duration::from_millis(timeout.millis), wait).await {
                        Ok(permit) => permit,
                        Err(_) => {
                            let message = format!(
                                "tool '{}' waited {} for one of its {limit} slots (all busy): it did not run",
                                name, timeout.text
                            );
                            let result = crate::error::error_result(ErrorKind::TimedOut, message);
                            return Ok(CallOutcome(Reply::Tool(Ok(result.into()))));
                        }
                    }
                }
            };
            let Ok(_permit) = permit else {
                return Ok(CallOutcome::refused("the tool's slots are closed"));
            };
            inner.call(call).await
        })
    }
}
