//! The context parameter types:
//!
//! - [`State<T>`]: shared state registered with [`Server::state`](crate::Server::state).
//! - [`Progress`]: `notifications/progress` to the client, when it asked for them.
//! - [`Cancellation`]: fires when the client cancels the call or its timeout expires.
//! - [`ClientLog`](crate::context::ClientLog): MCP logging notifications, filtered by the client's
//!   `logging/setLevel` (in `log.rs` beside this file).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use tokio_util::sync::CancellationToken;

use super::{Notice, Notifier};

/// Shared state a tool asks for by type: `fn tool(store: State<Store>, ...)`. Register the
/// value once with [`Server::state`](crate::Server::state); a tool asking for a type that was
/// never registered stops startup with an error naming the tool and the type.
///
/// ```
/// use std::sync::Mutex;
/// use toolsmith::{State, tool};
///
/// /// Count the calls.
/// #[tool(destructive = false)]
/// fn count(counter: State<Mutex<u64>>) -> u64 {
///     let mut n = counter.lock().unwrap();
///     *n += 1;
///     *n
/// }
///
/// assert_eq!(count(State::new(Mutex::new(41))), 42); // still an ordinary function
/// ```
pub struct State<T: ?Sized>(pub(crate) Arc<T>);

impl<T> State<T> {
    /// Wraps a value (for calling a tool from Rust, or tests).
    ///
    /// ```
    /// let state = toolsmith::State::new(5);
    /// assert_eq!(*state, 5);
    /// ```
    pub fn new(value: T) -> Self {
        State(Arc::new(value))
    }
}

impl<T: ?Sized> State<T> {
    /// The shared value's `Arc`.
    ///
    /// ```
    /// let state = toolsmith::State::new(String::from("x"));
    /// assert_eq!(state.arc().len(), 1);
    /// ```
    pub fn arc(&self) -> &Arc<T> {
        &self.0
    }
}

impl<T: ?Sized> From<Arc<T>> for State<T> {
    fn from(value: Arc<T>) -> Self {
        State(value)
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// Reports progress of a long call. Does nothing when the client's request carried no
/// `progressToken`. Callable from sync and async tools; notifications keep their order and
/// all reach the client before the result.
///
/// ```
/// use toolsmith::{Progress, tool};
///
/// /// Import rows.
/// #[tool(destructive = false)]
/// async fn import_rows(progress: Progress, rows: u32) -> u32 {
///     for done in 1..=rows {
///         progress.report(done as f64, rows as f64, format!("row {done}"));
///     }
///     rows
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "import_rows"));
/// use toolsmith::testing::{CallOptions, Client};
///
/// let client = Client::connect(server).await.unwrap();
/// let asked = CallOptions::default().progress_token("import-1");
/// let imported = client.call_with("import_rows", serde_json::json!({"rows": 3}), asked).await.unwrap();
/// let heard: Vec<_> = imported.progress().iter().map(|p| (p.progress, p.total, p.message.clone())).collect();
/// assert_eq!(heard[2], (3.0, Some(3.0), Some("row 3".to_owned())));
/// assert_eq!(heard.len(), 3, "in order, all before the result");
/// # }
/// ```
#[derive(Clone)]
pub struct Progress {
    pub(crate) target: Option<(ProgressToken, Notifier)>,
}

impl Progress {
    /// Sends `notifications/progress`: `done` of `total`, with a message.
    ///
    /// ```
    /// use toolsmith::Progress;
    ///
    /// /// Warm the cache.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn warm_cache(progress: Progress) -> String {
    ///     progress.report(1.0, 10.0, "starting");
    ///     "warm".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "warm_cache"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let asked = toolsmith::testing::CallOptions::default().progress_token(1);
    /// let outcome = client.call_with("warm_cache", serde_json::json!({}), asked).await.unwrap();
    /// let sent = outcome.progress();
    /// assert_eq!((sent[0].progress, sent[0].total, sent[0].message.as_deref()), (1.0, Some(10.0), Some("starting")));
    ///
    /// assert_eq!(warm_cache(Progress::disabled()), "warm"); // nobody asked: nothing is sent
    /// # }
    /// ```
    pub fn report(&self, done: f64, total: f64, message: impl Into<String>) {
        if self.is_enabled() {
            self.notify(done, Some(total), Some(message.into()));
        }
    }

    /// Sends `notifications/progress` as [`report`](Progress::report) does, the total and the
    /// message optional: for progress relayed from elsewhere (an upstream server, a child
    /// process) that does not always know them.
    ///
    /// ```
    /// /// Pass on the progress of a child process, which knows no total.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn relay_progress(progress: toolsmith::Progress) {
    ///     progress.notify(3.0, None, None);
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "relay_progress"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let asked = toolsmith::testing::CallOptions::default().progress_token("child");
    /// let outcome = client.call_with("relay_progress", serde_json::json!({}), asked).await.unwrap();
    /// let sent = outcome.progress();
    /// assert_eq!((sent[0].progress, sent[0].total, sent[0].message.as_deref()), (3.0, None, None));
    /// # }
    /// ```
    pub fn notify(&self, done: f64, total: Option<f64>, message: Option<String>) {
        if let Some((token, notifier)) = &self.target {
            let mut param = ProgressNotificationParam::new(token.clone(), done);
            param.total = total;
            param.message = message;
            notifier.send(Notice::Progress(param));
        }
    }

    /// Whether the client asked for progress (reports are sent).
    ///
    /// ```
    /// assert!(!toolsmith::Progress::disabled().is_enabled());
    /// ```
    pub fn is_enabled(&self) -> bool {
        self.target.is_some()
    }

    /// A `Progress` that sends nothing (for calling a tool from Rust, or tests).
    ///
    /// ```
    /// let progress = toolsmith::Progress::disabled();
    /// assert!(!progress.is_enabled());
    /// progress.report(1.0, 2.0, "half way"); // sent nowhere
    /// ```
    pub fn disabled() -> Self {
        Progress { target: None }
    }
}

/// Fires when the client cancels the call (`notifications/cancelled`) or its `timeout`
/// expires. Async tools are also stopped at their next `.await`; sync tools should poll
/// [`is_cancelled`](Cancellation::is_cancelled). No result is sent for a cancelled call.
///
/// ```
/// use toolsmith::{context::Cancellation, tool};
///
/// /// Crunch numbers until done or cancelled.
/// #[tool(read_only)]
/// fn crunch(cancel: Cancellation, steps: u64) -> u64 {
///     let mut done = 0;
///     while done < steps && !cancel.is_cancelled() {
///         done += 1;
///     }
///     done
/// }
///
/// // Called from Rust, nothing cancels it: every step is done.
/// assert_eq!(crunch(Cancellation::default(), 1000), 1000);
/// ```
#[derive(Clone, Default)]
pub struct Cancellation(pub(crate) CancellationToken);

impl Cancellation {
    /// Whether the call was cancelled.
    ///
    /// ```
    /// assert!(!toolsmith::context::Cancellation::default().is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Resolves when the call is cancelled.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let cancel = toolsmith::context::Cancellation::default();
    /// let first = tokio::select! {
    ///     _ = cancel.cancelled() => "cancelled",
    ///     _ = tokio::time::sleep(std::time::Duration::from_millis(20)) => "slept",
    /// };
    /// assert_eq!(first, "slept"); // nothing cancelled it
    /// # }
    /// ```
    pub async fn cancelled(&self) {
        self.0.cancelled().await
    }
}
