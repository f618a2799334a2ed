//! Per-call options of the test client: a timeout, a progress token.

use std::time::Duration;

use rmcp::model::{NumberOrString, ProgressToken};
use serde_json::Value;

/// Per-call options for [`Client::call_with`](super::Client::call_with).
///
/// ```
/// use std::time::Duration;
/// let options = toolsmith::testing::CallOptions::default()
///     .timeout(Duration::from_secs(5))
///     .progress_token("import-1");
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    pub(super) timeout: Option<Duration>,
    pub(super) progress: Option<ProgressToken>,
}

impl CallOptions {
    /// Gives up on the call after `timeout` (the client cancels it and gets
    /// [`CallError::Timeout`](super::CallError::Timeout)).
    ///
    /// ```
    /// let options = toolsmith::testing::CallOptions::default().timeout(std::time::Duration::from_millis(50));
    /// # let _ = options;
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Asks for progress notifications under `token` (see
    /// [`CallOutcome::progress`](super::CallOutcome::progress)).
    ///
    /// ```
    /// let options = toolsmith::testing::CallOptions::default().progress_token(7);
    /// # let _ = options;
    /// ```
    pub fn progress_token(mut self, token: impl Into<Value>) -> Self {
        let token = match token.into() {
            Value::Number(n) if n.is_i64() => NumberOrString::Number(n.as_i64().unwrap_or(0)),
            Value::String(s) => NumberOrString::String(s.into()),
            other => NumberOrString::String(other.to_string().into()),
        };
        self.progress = Some(ProgressToken(token));
        self
    }
}
