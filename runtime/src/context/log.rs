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
/// use toolsmith::{context::ClientLog, tool};
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
    pub(crate) target: Option<(Notifier, SessionLevel, super::ToolName)>,
}

impl ClientLog {
    /// Sends `data` at `level` if the client's level lets it through.
    ///
    /// ```
    /// let log = toolsmith::context::ClientLog::disabled();
    /// log.log(toolsmith::context::LogLevel::Notice, serde_json::json!({"step": 1}));
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
    /// toolsmith::context::ClientLog::disabled().debug("details");
    /// ```
    pub fn debug(&self, message: impl Into<String>) {
        self.log(LogLevel::Debug, message.into());
    }

    /// Sends an `info` message.
    ///
    /// ```
    /// toolsmith::context::ClientLog::disabled().info("started");
    /// ```
    pub fn info(&self, message: impl Into<String>) {
        self.log(LogLevel::Info, message.into());
    }

    /// Sends a `warning` message.
    ///
    /// ```
    /// toolsmith::context::ClientLog::disabled().warning("slow disk");
    /// ```
    pub fn warning(&self, message: impl Into<String>) {
        self.log(LogLevel::Warning, message.into());
    }

    /// Sends an `error` message.
    ///
    /// ```
    /// toolsmith::context::ClientLog::disabled().error("one file failed");
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
    /// # let _ = log;
    /// ```
    pub fn disabled() -> Self {
        ClientLog { target: None }
    }
}
