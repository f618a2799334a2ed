//! [`PerCaller`]: the bounds of the sessions an upstream keeps, one per caller.

use std::time::Duration;

/// One session of the upstream per caller, instead of one shared by all: for a started
/// (stdio) server, a child of each caller's own, whose environment may name the caller
/// (`${caller.id}`, `${caller.subject}`, `${caller.email}`, and with a token exchange
/// `${caller.token}`,
/// the caller's token for it); for a remote one acting as each user
/// ([`Upstream::exchange`](crate::Upstream::exchange), [`Upstream::sign_in`](crate::Upstream::sign_in)),
/// a connection with the user's own token. A browser, a working directory or a login an
/// upstream keeps is then one user's only.
///
/// At most [`max`](PerCaller::max) sessions live at once (default 16): past it, the least
/// recently used idle one is closed, and a call when none is idle is refused, saying so. A
/// session idle for [`idle`](PerCaller::idle) (default 5 minutes) is closed (its child
/// stopped).
///
/// ```
/// use std::time::Duration;
/// use toolsmith_gateway::{PerCaller, Upstream};
///
/// let browser = Upstream::stdio("browser", "browser-mcp")
///     .env("PROFILE", "/srv/profiles/${caller.id}")
///     .per_caller(PerCaller::new().max(8).idle(Duration::from_secs(120)));
/// assert_eq!(browser.per_caller_limits().map(|p| p.max_sessions()), Some(8));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerCaller {
    max: usize,
    idle: Duration,
}

/// The sessions alive at once, by default.
pub const DEFAULT_MAX_CALLERS: usize = 16;
/// How long a caller's session lives unused, by default.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(300);

impl Default for PerCaller {
    fn default() -> Self {
        PerCaller::new()
    }
}

impl PerCaller {
    /// At most 16 sessions, each closed after 5 minutes unused.
    ///
    /// ```
    /// let limits = toolsmith_gateway::PerCaller::new();
    /// assert_eq!(limits.max_sessions(), 16);
    /// assert_eq!(limits.idle_after().as_secs(), 300);
    /// ```
    pub fn new() -> Self {
        PerCaller {
            max: DEFAULT_MAX_CALLERS,
            idle: DEFAULT_IDLE,
        }
    }

    /// At most `sessions` alive at once (at least 1).
    ///
    /// ```
    /// assert_eq!(toolsmith_gateway::PerCaller::new().max(0).max_sessions(), 1);
    /// ```
    pub fn max(mut self, sessions: usize) -> Self {
        self.max = sessions.max(1);
        self
    }

    /// A session unused for `idle` is closed (at least 1 second).
    ///
    /// ```
    /// use std::time::Duration;
    /// let limits = toolsmith_gateway::PerCaller::new().idle(Duration::ZERO);
    /// assert_eq!(limits.idle_after(), Duration::from_secs(1));
    /// ```
    pub fn idle(mut self, idle: Duration) -> Self {
        self.idle = idle.max(Duration::from_secs(1));
        self
    }

    /// The most sessions alive at once.
    pub fn max_sessions(&self) -> usize {
        self.max
    }

    /// How long a session lives unused.
    pub fn idle_after(&self) -> Duration {
        self.idle
    }
}
