//! Context parameters: what a tool can ask for besides its JSON arguments, recognised by type
//! and never part of the input schema.
//!
//! - [`State<T>`]: shared state registered with [`Server::state`](crate::Server::state).
//! - [`Progress`]: `notifications/progress` to the client, when it asked for them.
//! - [`Cancellation`]: fires when the client cancels the call or its timeout expires.
//! - [`ClientLog`]: MCP logging notifications, filtered by the client's `logging/setLevel`.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParam,
    ProgressNotification, ProgressNotificationParam, ProgressToken, ServerNotification,
};
use rmcp::service::TxJsonRpcMessage;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::transport::Outbox;

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
pub struct State<T: ?Sized>(Arc<T>);

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
/// async fn import(progress: Progress, rows: u32) -> u32 {
///     for done in 1..=rows {
///         progress.report(done as f64, rows as f64, format!("row {done}"));
///     }
///     rows
/// }
/// ```
#[derive(Clone)]
pub struct Progress {
    target: Option<(ProgressToken, Notifier)>,
}

impl Progress {
    /// Sends `notifications/progress`: `done` of `total`, with a message.
    ///
    /// ```
    /// let progress = toolsmith::Progress::disabled();
    /// progress.report(1.0, 10.0, "starting"); // nobody asked: nothing is sent
    /// ```
    pub fn report(&self, done: f64, total: f64, message: impl Into<String>) {
        if let Some((token, notifier)) = &self.target {
            let mut param = ProgressNotificationParam::new(token.clone(), done).with_total(total);
            param.message = Some(message.into());
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
    /// # let _ = progress;
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
/// use toolsmith::{Cancellation, tool};
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
/// ```
#[derive(Clone, Default)]
pub struct Cancellation(CancellationToken);

impl Cancellation {
    /// Whether the call was cancelled.
    ///
    /// ```
    /// assert!(!toolsmith::Cancellation::default().is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Resolves when the call is cancelled.
    ///
    /// ```
    /// # async fn f(cancel: toolsmith::Cancellation) {
    /// tokio::select! {
    ///     _ = cancel.cancelled() => {}
    ///     _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
    /// }
    /// # }
    /// ```
    pub async fn cancelled(&self) {
        self.0.cancelled().await
    }
}

/// The levels of [`ClientLog`], least severe first (the MCP syslog levels).
///
/// ```
/// use toolsmith::LogLevel;
/// assert!(LogLevel::Warning > LogLevel::Info);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// `debug`
    Debug,
    /// `info`
    Info,
    /// `notice`
    Notice,
    /// `warning`
    Warning,
    /// `error`
    Error,
    /// `critical`
    Critical,
    /// `alert`
    Alert,
    /// `emergency`
    Emergency,
}

impl LogLevel {
    const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    fn wire(self) -> LoggingLevel {
        match self {
            LogLevel::Debug => LoggingLevel::Debug,
            LogLevel::Info => LoggingLevel::Info,
            LogLevel::Notice => LoggingLevel::Notice,
            LogLevel::Warning => LoggingLevel::Warning,
            LogLevel::Error => LoggingLevel::Error,
            LogLevel::Critical => LoggingLevel::Critical,
            LogLevel::Alert => LoggingLevel::Alert,
            LogLevel::Emergency => LoggingLevel::Emergency,
        }
    }

    pub(crate) fn from_wire(level: LoggingLevel) -> LogLevel {
        *LogLevel::ALL
            .iter()
            .find(|l| l.wire() == level)
            .unwrap_or(&LogLevel::Info)
    }
}

/// The session's minimum log level, set by the client's `logging/setLevel` (default `info`).
#[derive(Clone)]
pub(crate) struct SessionLevel(Arc<AtomicU8>);

impl Default for SessionLevel {
    fn default() -> Self {
        SessionLevel(Arc::new(AtomicU8::new(LogLevel::Info as u8)))
    }
}

impl SessionLevel {
    pub(crate) fn set(&self, level: LogLevel) {
        self.0.store(level as u8, Ordering::Relaxed);
    }

    fn allows(&self, level: LogLevel) -> bool {
        level as u8 >= self.0.load(Ordering::Relaxed)
    }
}

/// Sends MCP log messages (`notifications/message`) to the client, honouring the level the
/// client set with `logging/setLevel` (default `info`). The logger name is the tool's name.
///
/// ```
/// use toolsmith::{ClientLog, tool};
///
/// /// Sync a folder.
/// #[tool(destructive = false)]
/// async fn sync_folder(log: ClientLog, path: String) -> String {
///     log.info(format!("syncing {path}"));
///     log.warning("2 files skipped");
///     "done".into()
/// }
/// ```
#[derive(Clone)]
pub struct ClientLog {
    target: Option<(Notifier, SessionLevel, &'static str)>,
}

impl ClientLog {
    /// Sends `data` at `level` if the client's level lets it through.
    ///
    /// ```
    /// let log = toolsmith::ClientLog::disabled();
    /// log.log(toolsmith::LogLevel::Notice, serde_json::json!({"step": 1}));
    /// ```
    pub fn log(&self, level: LogLevel, data: impl Into<Value>) {
        if let Some((notifier, session, logger)) = &self.target
            && session.allows(level)
        {
            let mut param = LoggingMessageNotificationParam::new(level.wire(), data.into());
            param.logger = Some((*logger).to_owned());
            notifier.send(Notice::Log(param));
        }
    }

    /// Sends a `debug` message.
    ///
    /// ```
    /// toolsmith::ClientLog::disabled().debug("details");
    /// ```
    pub fn debug(&self, message: impl Into<String>) {
        self.log(LogLevel::Debug, message.into());
    }

    /// Sends an `info` message.
    ///
    /// ```
    /// toolsmith::ClientLog::disabled().info("started");
    /// ```
    pub fn info(&self, message: impl Into<String>) {
        self.log(LogLevel::Info, message.into());
    }

    /// Sends a `warning` message.
    ///
    /// ```
    /// toolsmith::ClientLog::disabled().warning("slow disk");
    /// ```
    pub fn warning(&self, message: impl Into<String>) {
        self.log(LogLevel::Warning, message.into());
    }

    /// Sends an `error` message.
    ///
    /// ```
    /// toolsmith::ClientLog::disabled().error("one file failed");
    /// ```
    pub fn error(&self, message: impl Into<String>) {
        self.log(LogLevel::Error, message.into());
    }

    /// A `ClientLog` that sends nothing (for calling a tool from Rust, or tests).
    ///
    /// ```
    /// let log = toolsmith::ClientLog::disabled();
    /// # let _ = log;
    /// ```
    pub fn disabled() -> Self {
        ClientLog { target: None }
    }
}

/// A notification a tool produced, in order.
enum Notice {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

/// The ordered channel from a call's context types to the client.
#[derive(Clone)]
struct Notifier(mpsc::UnboundedSender<Notice>);

impl Notifier {
    fn send(&self, notice: Notice) {
        let _ = self.0.send(notice);
    }
}

/// Registered state values, by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap(Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(&mut self.0).insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub(crate) fn contains(&self, key: TypeId) -> bool {
        self.0.contains_key(&key)
    }
}

/// Everything a call's context parameters are made from.
#[doc(hidden)]
pub struct CallContext {
    pub(crate) tool: &'static str,
    pub(crate) states: StateMap,
    pub(crate) cancel: CancellationToken,
    pub(crate) outbox: Option<Outbox>,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) level: SessionLevel,
    forwarder: Mutex<Option<(Notifier, tokio::task::JoinHandle<()>)>>,
}

impl CallContext {
    pub(crate) fn new(
        tool: &'static str,
        states: StateMap,
        cancel: CancellationToken,
        outbox: Option<Outbox>,
        progress_token: Option<ProgressToken>,
        level: SessionLevel,
    ) -> Self {
        CallContext {
            tool,
            states,
            cancel,
            outbox,
            progress_token,
            level,
            forwarder: Mutex::new(None),
        }
    }

    /// The notifier of this call, started on first use (only calls that report pay for it).
    fn notifier(&self) -> Option<Notifier> {
        let outbox = self.outbox.clone()?;
        let mut slot = self.forwarder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((notifier, _)) = &*slot {
            return Some(notifier.clone());
        }
        let (tx, mut rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(async move {
            while let Some(notice) = rx.recv().await {
                let notification = match notice {
                    Notice::Progress(param) => {
                        ServerNotification::ProgressNotification(ProgressNotification::new(param))
                    }
                    Notice::Log(param) => ServerNotification::LoggingMessageNotification(
                        LoggingMessageNotification::new(param),
                    ),
                };
                let frame = TxJsonRpcMessage::<RoleServer>::notification(notification);
                if let Err(err) = outbox.send(&frame).await {
                    tracing::debug!(%err, "a notification could not be sent");
                }
            }
        });
        let notifier = Notifier(tx);
        *slot = Some((notifier.clone(), task));
        Some(notifier)
    }

    /// Waits until every notification of the call is sent, so that they precede the result.
    /// Tool code that kept a `Progress` or `ClientLog` past its return cannot hold this up:
    /// only what was sent before the call ended is awaited.
    pub(crate) async fn flush(&self) {
        let taken = self
            .forwarder
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some((notifier, task)) = taken {
            drop(notifier);
            // Clones a tool kept past its return keep the channel open: bound the wait.
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), task).await;
        }
    }
}

/// A parameter type filled from the call's context rather than from its arguments.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a toolsmith context parameter",
    note = "context parameters are `toolsmith::State<T>`, `toolsmith::Progress`, `toolsmith::Cancellation` and `toolsmith::ClientLog`"
)]
pub trait FromContext: Sized {
    fn from_context(context: &CallContext) -> Option<Self>;
}

impl<T: Send + Sync + 'static> FromContext for State<T> {
    fn from_context(context: &CallContext) -> Option<Self> {
        let value = context.states.0.get(&TypeId::of::<T>())?.clone();
        value.downcast::<T>().ok().map(State)
    }
}

impl FromContext for Progress {
    fn from_context(context: &CallContext) -> Option<Self> {
        let target = match &context.progress_token {
            Some(token) => context.notifier().map(|n| (token.clone(), n)),
            None => None,
        };
        Some(Progress { target })
    }
}

impl FromContext for Cancellation {
    fn from_context(context: &CallContext) -> Option<Self> {
        Some(Cancellation(context.cancel.clone()))
    }
}

impl FromContext for ClientLog {
    fn from_context(context: &CallContext) -> Option<Self> {
        let target = context
            .notifier()
            .map(|n| (n, context.level.clone(), context.tool));
        Some(ClientLog { target })
    }
}

/// The state type a `State<T>` parameter needs, for the startup check.
#[doc(hidden)]
pub struct StateKey {
    pub type_id: TypeId,
    pub type_name: &'static str,
}

/// The key of `State<T>` (used by `#[tool]`-generated code).
#[doc(hidden)]
pub fn state_key<T: 'static>() -> StateKey {
    StateKey {
        type_id: TypeId::of::<T>(),
        type_name: std::any::type_name::<T>(),
    }
}
