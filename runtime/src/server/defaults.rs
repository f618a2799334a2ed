//! The defaults of [`Server`]'s settings, each beside the setting it defaults
//! (`Server::page_size` and `Server::DEFAULT_PAGE_SIZE`).

use std::time::Duration;

use super::Server;

impl Server {
    /// How many tools one MCP `tools/list` page holds unless [`Server::page_size`] says
    /// otherwise: 500. (A [`Search`](crate::registry::Search) of the registry pages by
    /// [`Search::DEFAULT_PAGE_SIZE`](crate::registry::Search::DEFAULT_PAGE_SIZE) instead.)
    ///
    /// ```
    /// assert_eq!(toolsmith::Server::DEFAULT_PAGE_SIZE, 500);
    /// ```
    pub const DEFAULT_PAGE_SIZE: usize = super::DEFAULT_TOOLS_LIST_PAGE_SIZE;

    /// How long clients may keep the tool list and `server/discover` on 2026-07-28 unless
    /// [`Server::list_ttl`] says otherwise: 5 minutes, for a tool set fixed while the server
    /// runs (one whose [`Server::registry_handle`] was taken gets 0).
    ///
    /// ```
    /// assert_eq!(toolsmith::Server::DEFAULT_LIST_TTL.as_secs(), 300);
    /// ```
    pub const DEFAULT_LIST_TTL: Duration = super::DEFAULT_LIST_TTL;

    /// The longest stdio request line accepted unless [`Server::max_line_length`] says
    /// otherwise: 4 MiB.
    ///
    /// ```
    /// assert_eq!(toolsmith::Server::DEFAULT_MAX_LINE_LENGTH, 4 * 1024 * 1024);
    /// ```
    pub const DEFAULT_MAX_LINE_LENGTH: usize = crate::transport::DEFAULT_MAX_LINE;

    /// How long the stdio reader keeps polling for the next request after the last one,
    /// unless [`Server::busy_poll`] says otherwise: 20 µs.
    ///
    /// ```
    /// assert_eq!(toolsmith::Server::DEFAULT_BUSY_POLL, std::time::Duration::from_micros(20));
    /// ```
    pub const DEFAULT_BUSY_POLL: Duration = super::DEFAULT_BUSY_POLL;

    /// How many calls of sync tools run at once unless [`Server::max_sync_calls`] says
    /// otherwise: 64. More wait for a free slot, without holding a thread.
    ///
    /// ```
    /// assert_eq!(toolsmith::Server::DEFAULT_MAX_SYNC_CALLS, 64);
    /// ```
    pub const DEFAULT_MAX_SYNC_CALLS: usize = super::DEFAULT_MAX_SYNC_CALLS;

    /// How long a request state of a call that asks (2026-07-28) may be echoed back unless
    /// [`Server::state_ttl`] says otherwise: 5 minutes.
    ///
    /// ```
    /// assert_eq!(toolsmith::Server::DEFAULT_STATE_TTL.as_secs(), 300);
    /// ```
    pub const DEFAULT_STATE_TTL: Duration = super::DEFAULT_STATE_TTL;

    /// How many tasks one server process runs at once unless [`Server::max_tasks`] (or
    /// `--max-tasks`) says otherwise: 1,000. Past it, a call that would start one is refused.
    ///
    /// ```
    /// assert_eq!(toolsmith::Server::DEFAULT_MAX_TASKS, 1000);
    /// ```
    pub const DEFAULT_MAX_TASKS: usize = crate::task::DEFAULT_MAX_TASKS;

    /// How many tasks one caller may have running on one server process at once unless
    /// [`Server::max_tasks_per_caller`] (or `--max-tasks-per-caller`) says otherwise: 100.
    ///
    /// ```
    /// assert_eq!(toolsmith::Server::DEFAULT_MAX_TASKS_PER_CALLER, 100);
    /// ```
    pub const DEFAULT_MAX_TASKS_PER_CALLER: usize = crate::task::DEFAULT_MAX_TASKS_PER_CALLER;
}

cfg_http! {
    impl Server {
        /// The largest HTTP request body accepted unless `Server::max_body` says otherwise:
        /// 4 MiB.
        ///
        /// ```
        /// assert_eq!(toolsmith::Server::DEFAULT_MAX_BODY, 4 * 1024 * 1024);
        /// ```
        pub const DEFAULT_MAX_BODY: usize = crate::transport::DEFAULT_MAX_BODY;

        /// How long a client may take to send a request head unless
        /// `Server::http_header_timeout` says otherwise: 10 s.
        ///
        /// ```
        /// assert_eq!(toolsmith::Server::DEFAULT_HTTP_HEADER_TIMEOUT.as_secs(), 10);
        /// ```
        pub const DEFAULT_HTTP_HEADER_TIMEOUT: Duration = crate::transport::DEFAULT_HEADER_TIMEOUT;

        /// How long a client may take to send a request body unless
        /// `Server::http_body_timeout` says otherwise: 30 s.
        ///
        /// ```
        /// assert_eq!(toolsmith::Server::DEFAULT_HTTP_BODY_TIMEOUT.as_secs(), 30);
        /// ```
        pub const DEFAULT_HTTP_BODY_TIMEOUT: Duration = crate::transport::DEFAULT_BODY_TIMEOUT;

        /// How long a keep-alive connection may stay silent between requests unless
        /// `Server::http_idle_timeout` says otherwise: 60 s.
        ///
        /// ```
        /// assert_eq!(toolsmith::Server::DEFAULT_HTTP_IDLE_TIMEOUT.as_secs(), 60);
        /// ```
        pub const DEFAULT_HTTP_IDLE_TIMEOUT: Duration = crate::transport::DEFAULT_IDLE_TIMEOUT;

        /// How many HTTP sessions are open at once unless `Server::max_sessions` says
        /// otherwise: 1,000.
        ///
        /// ```
        /// assert_eq!(toolsmith::Server::DEFAULT_MAX_SESSIONS, 1000);
        /// ```
        pub const DEFAULT_MAX_SESSIONS: usize = crate::transport::DEFAULT_MAX_SESSIONS;
    }
}
