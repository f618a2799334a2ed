//! Per-call options of the test client: a timeout, a progress token.

use std::time::Duration;

use rmcp::model::{NumberOrString, ProgressToken};
use serde_json::Value;

/// Per-call options for [`Client::call_with`](super::Client::call_with).
///
/// ```
/// use std::time::Duration;
/// use toolsmith::Progress;
///
/// /// Count sheep, saying how far along.
/// #[toolsmith::tool(read_only, closed_world)]
/// fn count_sheep(sheep: u32, progress: Progress) -> u32 {
///     for n in 1..=sheep {
///         progress.report(n.into(), sheep.into(), format!("{n} sheep"));
///     }
///     sheep
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "count_sheep"));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let options = toolsmith::testing::CallOptions::default()
///     .timeout(Duration::from_secs(5))
///     .progress_token("import-1");
/// let counted = client.call_with("count_sheep", serde_json::json!({"sheep": 2}), options).await.unwrap();
/// assert_eq!(counted.progress().len(), 2);
/// # }
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
    /// use std::time::Duration;
    /// use toolsmith::testing::{CallError, CallOptions};
    ///
    /// /// Take a long nap.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// async fn take_long_nap() -> String {
    ///     tokio::time::sleep(Duration::from_secs(60)).await;
    ///     "rested".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "take_long_nap"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let options = CallOptions::default().timeout(Duration::from_millis(50));
    /// let err = client.call_with("take_long_nap", serde_json::json!({}), options).await.unwrap_err();
    /// assert_eq!(err, CallError::Timeout { tool: "take_long_nap".into(), after: Duration::from_millis(50) });
    /// # }
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Asks for progress notifications under `token` (see
    /// [`CallOutcome::progress`](super::CallOutcome::progress)).
    ///
    /// ```
    /// use toolsmith::rmcp::model::{NumberOrString, ProgressToken};
    ///
    /// /// Report once.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn report_once(progress: toolsmith::Progress) {
    ///     progress.report(1.0, 1.0, "done");
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "report_once"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let options = toolsmith::testing::CallOptions::default().progress_token(7);
    /// let reported = client.call_with("report_once", serde_json::json!({}), options).await.unwrap();
    /// assert_eq!(reported.progress()[0].progress_token, ProgressToken(NumberOrString::Number(7)));
    /// # }
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
