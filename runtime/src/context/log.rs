//! [`ClientLog`]: MCP log messages to the client, honouring its `logging/setLevel`.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use serde_json::Value;

use super::{Notice, Notifier};

/// The levels of [`ClientLog`], least severe first (the MCP syslog levels).
///
/// ```
/// use toolsmith::context::LogLevel;
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

/// A level as the protocol names it (for a log relayed from another server).
///
/// ```
/// use toolsmith::context::LogLevel;
/// use toolsmith::rmcp::model::LoggingLevel;
///
/// assert_eq!(LogLevel::from(LoggingLevel::Warning), LogLevel::Warning);
/// ```
impl From<LoggingLevel> for LogLevel {
    fn from(level: LoggingLevel) -> LogLevel {
        LogLevel::from_wire(level)
    }
}

/// A level as the protocol names it.
///
/// ```
/// use toolsmith::context::LogLevel;
/// use toolsmith::rmcp::model::LoggingLevel;
///
/// assert_eq!(LoggingLevel::from(LogLevel::Notice), LoggingLevel::Notice);
/// ```
impl From<LogLevel> for LoggingLevel {
    fn from(level: LogLevel) -> LoggingLevel {
        level.wire()
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
    /// The level of one request that names its own (2026-07-28: `_meta` key
    /// `io.modelcontextprotocol/logLevel`): none lets no message through.
    pub(crate) fn fixed(level: Option<LogLevel>) -> Self {
        SessionLevel(Arc::new(AtomicU8::new(level.map_or(u8::MAX, |l| l as u8))))
    }

    pub(crate) fn set(&self, level: LogLevel) {
        self.0.store(level as u8, Ordering::Relaxed);
    }

    /// The least severe level let through (`None`: none is).
    fn least(&self) -> Option<LogLevel> {
        LogLevel::ALL
            .get(usize::from(self.0.load(Ordering::Relaxed)))
            .copied()
    }

    fn allows(&self, level: LogLevel) -> bool {
        level as u8 >= self.0.load(Ordering::Relaxed)
    }
}

/// Sends MCP log messages (`notifications/message`) to the client, honouring the level the
/// client set with `logging/setLevel` (default `info`). The logger name is the tool's name.
///
/// ```
/// use toolsmith::context::{ClientLog, LogLevel};
/// use toolsmith::tool;
///
/// /// Sync a folder.
/// #[tool(destructive = false)]
/// async fn sync_folder(log: ClientLog, path: String) -> String {
///     log.info(format!("syncing {path}"));
///     log.debug("listing the files"); // below the default level: not sent
///     log.warning("2 files skipped");
///     "done".into()
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "sync_folder"));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let synced = client.call("sync_folder", serde_json::json!({"path": "/tmp/a"})).await.unwrap();
/// let logs: Vec<_> = synced.logs().iter().map(|m| (LogLevel::from(m.level), m.data.clone())).collect();
/// assert_eq!(logs, [(LogLevel::Info, "syncing /tmp/a".into()), (LogLevel::Warning, "2 files skipped".into())]);
/// assert_eq!(synced.logs()[0].logger.as_deref(), Some("sync_folder"));
/// # }
/// ```
#[derive(Clone)]
pub struct ClientLog {
    pub(crate) target: Option<(Notifier, SessionLevel, super::ToolName)>,
}

impl ClientLog {
    /// Sends `data` at `level` if the client's level lets it through.
    ///
    /// ```
    /// use toolsmith::context::{ClientLog, LogLevel};
    ///
    /// /// Run the first step of the job.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn first_step(log: ClientLog) {
    ///     log.log(LogLevel::Notice, serde_json::json!({"step": 1}));
    ///     log.log(LogLevel::Debug, "details"); // the client takes `info` and up
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "first_step"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let outcome = client.call("first_step", serde_json::json!({})).await.unwrap();
    /// let sent = outcome.logs();
    /// assert_eq!(sent.len(), 1, "{sent:?}");
    /// assert_eq!(LogLevel::from(sent[0].level), LogLevel::Notice);
    /// assert_eq!(sent[0].data, serde_json::json!({"step": 1}));
    /// # }
    /// ```
    pub fn log(&self, level: LogLevel, data: impl Into<Value>) {
        if let Some((notifier, session, logger)) = &self.target
            && session.allows(level)
        {
            let mut param = LoggingMessageNotificationParam::new(level.wire(), data.into());
            param.logger = Some(logger.to_string());
            notifier.send(Notice::Log(param));
        }
    }

    /// Sends a `debug` message.
    ///
    /// ```
    /// /// Do something quietly.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn quiet_step(log: toolsmith::context::ClientLog) -> String {
    ///     log.debug("details");
    ///     "done".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "quiet_step"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let outcome = client.call("quiet_step", serde_json::json!({})).await.unwrap();
    /// assert!(outcome.logs().is_empty(), "a client takes `info` and up until it sets its level");
    /// # }
    /// ```
    pub fn debug(&self, message: impl Into<String>) {
        self.log(LogLevel::Debug, message.into());
    }

    /// Sends an `info` message.
    ///
    /// ```
    /// use toolsmith::context::{ClientLog, LogLevel};
    ///
    /// /// Start the job.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn start_job(log: ClientLog) {
    ///     log.info("started");
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "start_job"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let outcome = client.call("start_job", serde_json::json!({})).await.unwrap();
    /// assert_eq!(LogLevel::from(outcome.logs()[0].level), LogLevel::Info);
    /// assert_eq!(outcome.logs()[0].data, "started");
    /// # }
    /// ```
    pub fn info(&self, message: impl Into<String>) {
        self.log(LogLevel::Info, message.into());
    }

    /// Sends a `warning` message.
    ///
    /// ```
    /// use toolsmith::context::{ClientLog, LogLevel};
    ///
    /// /// Check the disk.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn check_disk(log: ClientLog) -> bool {
    ///     log.warning("slow disk");
    ///     true
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "check_disk"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let outcome = client.call("check_disk", serde_json::json!({})).await.unwrap();
    /// assert_eq!(LogLevel::from(outcome.logs()[0].level), LogLevel::Warning);
    /// assert_eq!(outcome.logs()[0].data, "slow disk");
    /// # }
    /// ```
    pub fn warning(&self, message: impl Into<String>) {
        self.log(LogLevel::Warning, message.into());
    }

    /// Sends an `error` message.
    ///
    /// ```
    /// use toolsmith::context::{ClientLog, LogLevel};
    ///
    /// /// Copy the files, going on past one that fails.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn copy_files(log: ClientLog) -> u32 {
    ///     log.error("one file failed");
    ///     2
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "copy_files"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let outcome = client.call("copy_files", serde_json::json!({})).await.unwrap();
    /// assert_eq!(LogLevel::from(outcome.logs()[0].level), LogLevel::Error);
    /// assert_eq!(outcome.logs()[0].data, "one file failed");
    /// assert!(!outcome.is_error(), "a logged error is not an error result");
    /// # }
    /// ```
    pub fn error(&self, message: impl Into<String>) {
        self.log(LogLevel::Error, message.into());
    }

    /// The least severe level the client takes (`None`: it takes no log message): what to
    /// ask of a server whose logs are relayed.
    ///
    /// ```
    /// assert_eq!(toolsmith::context::ClientLog::disabled().level(), None);
    /// ```
    pub fn level(&self) -> Option<LogLevel> {
        self.target
            .as_ref()
            .and_then(|(_, session, _)| session.least())
    }

    /// A `ClientLog` that sends nothing (for calling a tool from Rust, or tests).
    ///
    /// ```
    /// let log = toolsmith::context::ClientLog::disabled();
    /// assert_eq!(log.level(), None); // it takes no message
    /// log.info("sent nowhere");
    /// ```
    pub fn disabled() -> Self {
        ClientLog { target: None }
    }
}
