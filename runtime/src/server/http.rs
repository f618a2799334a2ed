//! Serving over Streamable HTTP (feature `http`): the builder's HTTP settings and
//! [`Server::serve_http`].

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use super::Server;
use super::session::http::{FastSession, HttpFastPath};
use crate::Error;
use crate::transport::http::FastPath;

#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
impl Server {
    /// Serves over Streamable HTTP at `addr` (port 0 picks a free port; the URL is logged as
    /// `listening on <url>`) until SIGTERM or SIGINT; calls in flight then get 10 seconds.
    ///
    /// Stateless unless [`sessions`](Self::sessions) is on: every POST stands alone, so
    /// identical replicas can share one load balancer without affinity. The `Host` of every
    /// request must be loopback, the [public URL](Self::public_url)'s host, or one added
    /// with [`allowed_host`](Self::allowed_host); an `Origin`, when sent, must be a loopback
    /// page, the public URL's origin, or one added with
    /// [`allowed_origin`](Self::allowed_origin).
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new().serve_http("127.0.0.1:8000").await
    /// # }
    /// ```
    pub async fn serve_http(mut self, addr: impl ToSocketAddrs) -> Result<(), Error> {
        crate::logging::init();
        self.http.addr = resolve(addr, "HTTP address")?;
        if self.http.path.contains(['{', '}', '*']) {
            return Err(Error::config(
                "http path",
                format!(
                    "the endpoint path {:?} has route syntax ({{, }} or *); give a literal path such as /mcp",
                    self.http.path
                ),
            ));
        }
        // Paths the server answers itself beside the endpoint.
        let taken = ["/healthz", "/metrics"];
        #[cfg(feature = "signin")]
        let signing_in = self.sign_in.is_some();
        #[cfg(not(feature = "signin"))]
        let signing_in = false;
        if taken.contains(&self.http.path.as_str())
            || self.http.path.starts_with("/.well-known/")
            || (signing_in && self.http.path.starts_with("/oauth/"))
        {
            return Err(Error::config(
                "http path",
                format!(
                    "the endpoint path {:?} is one the server answers itself (/healthz, /metrics, /.well-known/..., /oauth/... with sign-in); give another, such as /mcp",
                    self.http.path
                ),
            ));
        }
        #[cfg(feature = "auth")]
        if self.guarded() && self.http.public_url.is_none() && self.http.addr.ip().is_unspecified()
        {
            return Err(Error::config(
                "public url",
                format!(
                    "with authorization on {}, clients and tokens need the server's real URL: give it with --public-url (Server::public_url), e.g. https://mcp.example.com/mcp",
                    self.http.addr
                ),
            ));
        }
        #[cfg_attr(not(any(feature = "auth", feature = "metrics")), allow(unused_mut))]
        let mut config = std::mem::take(&mut self.http);
        #[cfg(feature = "auth")]
        let auth = self.clone();
        let fast_path = !self.no_fast_path;
        // What the server is made with: nothing is set on it after.
        #[cfg_attr(not(any(feature = "auth", feature = "metrics")), allow(unused_mut))]
        let mut way_in = super::WayInSettings::http(config.sessions);
        #[cfg(feature = "auth")]
        let scopes = self.guarded_scopes()?;
        #[cfg(feature = "auth")]
        {
            way_in.scopes = scopes.clone();
        }
        // A listener of the metrics' own stops when serving ends.
        #[cfg(feature = "metrics")]
        let _metrics = {
            #[cfg(feature = "auth")]
            let authorized = scopes.is_some();
            #[cfg(not(feature = "auth"))]
            let authorized = false;
            let settings = std::mem::take(&mut self.metrics);
            config.metrics_hosts = settings.hosts.clone();
            let (metrics, exposure, apart) =
                settings.http(&self.served()?, self.is_live(), authorized)?;
            way_in.metrics = Some(metrics.clone());
            config.metrics = Some(metrics);
            config.metrics_exposure = exposure;
            apart
        };
        let handler = self.handler_at(way_in)?;
        #[cfg(feature = "auth")]
        {
            config.guard = auth.guard(&handler, scopes)?;
        }
        let registry = handler.pipeline.registry.current();
        tracing::info!(
            tools = handler.catalog().offered.len(),
            resources = registry.resources().len(),
            prompts = registry.prompts().len(),
            "serving MCP over Streamable HTTP"
        );
        if handler.pipeline.random_seal && handler.pipeline.any_asks() {
            tracing::info!(
                "no state key (--state-key, TOOLSMITH_STATE_KEY): the request states of \
                 confirmations and questions (2026-07-28) are sealed with a random key of this \
                 process; replicas behind one load balancer need one shared key"
            );
        }
        let in_flight = handler.pipeline.tracker.clone();
        let tasks = handler.pipeline.tasks.clone();
        config.store = Some(crate::transport::http::SharedStore(tasks.store.clone()));
        // Replicas sharing the store hear each other's resource changes.
        handler
            .subscriptions
            .share(tasks.store.clone())
            .await
            .map_err(|err| {
                let message = format!("the resources' channel in the task store: {err}");
                crate::Error::config_from("task store", message, err)
            })?;
        // Tool requests take the fast path, unless turned off (tests compare); with sessions,
        // it opens them too.
        let sessions = config.sessions;
        let fast: Option<Arc<dyn FastPath>> = fast_path.then(|| {
            Arc::new(HttpFastPath::new(handler.for_session(), sessions)) as Arc<dyn FastPath>
        });
        // A session the fast path opened keeps its handler when rmcp comes to serve it.
        let make = move || match crate::transport::http::restoring()
            .as_ref()
            .and_then(FastSession::of)
        {
            Some(seat) => (*seat.server).clone(),
            None => handler.for_session(),
        };
        let served = crate::transport::http::serve(make, config, fast, in_flight).await;
        // Tasks still running end with serving: failed as stopped, in a store that outlives
        // the process (a client polling another replica sees it).
        tasks.stop().await;
        // The last requests' spans leave before the process does.
        crate::trace::flush().await;
        served
    }

    /// Routes of the program's own, served beside the MCP endpoint (a page, a callback
    /// another server redirects a browser to), made when serving starts with what it serves
    /// with ([`Serving`](crate::server::Serving): the store, the public URL). They answer
    /// under the same `Host` checks as the endpoint, without its authorization: a route
    /// decides who may use it. A path the server answers itself (the endpoint, `/healthz`,
    /// `/metrics`, `/.well-known/…`, sign-in's `/oauth/…`) stays the server's.
    ///
    /// ```
    /// use toolsmith::axum::{Router, routing::get};
    /// use toolsmith::{Registry, Server};
    ///
    /// let server = Server::with_registry(Registry::new()).http_routes(|serving| {
    ///     let origin = serving.origin().to_owned();
    ///     Router::new().route("/about", get(move || async move { format!("an MCP server at {origin}") }))
    /// });
    /// # let _ = server;
    /// ```
    pub fn http_routes(
        mut self,
        make: impl Fn(&crate::server::Serving) -> axum::Router + Send + Sync + 'static,
    ) -> Self {
        self.http
            .routes
            .push(crate::transport::http::RouteMaker(Arc::new(make)));
        self
    }

    /// The path of the MCP endpoint (default `/mcp`).
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .http_path("/tools") // POST http://127.0.0.1:8000/tools
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn http_path(mut self, path: impl Into<String>) -> Self {
        let path = path.into();
        self.http.path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        self
    }

    /// The URL clients reach the server at, behind a proxy (default `http://<address><path>`).
    /// Its host is allowed, and so is its origin.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     // Behind a proxy that forwards https://mcp.example.com/mcp here.
    ///     .public_url("https://mcp.example.com/mcp")
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.http.public_url = Some(url.into());
        self
    }

    /// Allows requests whose `Host` is `host` (`name` or `name:port`), besides loopback and
    /// the public URL's host.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on port 8000 of every interface until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     // Also answers requests for http://mcp.internal:8000/mcp.
    ///     .allowed_host("mcp.internal:8000")
    ///     .serve_http("0.0.0.0:8000")
    ///     .await
    /// # }
    /// ```
    pub fn allowed_host(mut self, host: impl Into<String>) -> Self {
        self.http.allowed_hosts.push(host.into());
        self
    }

    /// Allows requests from pages of `origin` (`scheme://host[:port]`, `:*` for any port),
    /// besides loopback pages and the public URL's origin.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     // Pages of https://app.example.com may call it from a browser.
    ///     .allowed_origin("https://app.example.com")
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn allowed_origin(mut self, origin: impl Into<String>) -> Self {
        self.http.allowed_origins.push(origin.into());
        self
    }

    /// Keeps a session per client (`Mcp-Session-Id`), the default; `false` serves each
    /// request on its own (`--stateless`). A client before 2026-07-28 can be asked something
    /// (a confirmation) only in a session. With a task store every replica shares
    /// ([`task_store`](Server::task_store) with a `RedisStore`), any replica serves any
    /// request of a session; with another store a session lives in the process that opened
    /// it, and replicas need affinity. It costs a map entry while its client only calls tools
    /// and lists them; the first request that needs more (an event stream of its own, a
    /// subscription, a question to the client) gives it a service of rmcp's. A session
    /// nothing is asked of for 5 minutes ends.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .sessions(false) // stateless: no Mcp-Session-Id, any replica answers any request
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn sessions(mut self, on: bool) -> Self {
        self.http.sessions = on;
        self
    }

    /// Answers each POST with a server-sent event stream (`text/event-stream`) instead of one
    /// JSON body; sessions always do. Stateless JSON is the default: no stream to keep open.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .sse_responses(true) // each POST is answered with text/event-stream
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn sse_responses(mut self, on: bool) -> Self {
        self.http.sse = on;
        self
    }

    /// The largest request body accepted (default [`Server::DEFAULT_MAX_BODY`](crate::Server::DEFAULT_MAX_BODY),
    /// 4 MiB); a larger one gets 413.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .max_body(1 << 20) // a body over 1 MiB gets 413
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.http.max_body = bytes;
        self
    }
    /// How long a client may take to send a request head (default
    /// [`Server::DEFAULT_HTTP_HEADER_TIMEOUT`](crate::Server::DEFAULT_HTTP_HEADER_TIMEOUT), 10 s), from the moment its
    /// connection opens or the first byte of a later request arrives; a slower one's
    /// connection is closed.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .http_header_timeout(std::time::Duration::from_secs(5))
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn http_header_timeout(mut self, timeout: Duration) -> Self {
        self.http.header_timeout = timeout;
        self
    }

    /// How long a client may take to send a request body (default
    /// [`Server::DEFAULT_HTTP_BODY_TIMEOUT`](crate::Server::DEFAULT_HTTP_BODY_TIMEOUT), 30 s); a slower one gets 408
    /// and its connection is closed.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .http_body_timeout(std::time::Duration::from_secs(5)) // a slower body gets 408
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn http_body_timeout(mut self, timeout: Duration) -> Self {
        self.http.body_timeout = timeout;
        self
    }

    /// How long a keep-alive connection may stay silent between requests (default
    /// [`Server::DEFAULT_HTTP_IDLE_TIMEOUT`](crate::Server::DEFAULT_HTTP_IDLE_TIMEOUT), 60 s) before it is closed.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .http_idle_timeout(std::time::Duration::from_secs(30))
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn http_idle_timeout(mut self, timeout: Duration) -> Self {
        self.http.idle_timeout = timeout;
        self
    }

    /// The most sessions open at once, with [`sessions`](Self::sessions) on (default
    /// [`Server::DEFAULT_MAX_SESSIONS`](crate::Server::DEFAULT_MAX_SESSIONS), 1,000). Past it, an
    /// `initialize` gets 503 with `Retry-After`; idle sessions still expire.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .sessions(true)
    ///     .max_sessions(100) // the 101st initialize gets 503
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.http.max_sessions = Some(sessions);
        self
    }

    /// The most connections open at once. Past it, a new connection waits (in the system's
    /// backlog) until one closes; an open one is never closed for it. The default is three
    /// quarters of the process's file-descriptor limit (raised first to its hard limit), at
    /// most 16,384.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on 127.0.0.1:8000 until SIGTERM or SIGINT.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new()
    ///     .max_connections(1000)
    ///     .serve_http("127.0.0.1:8000")
    ///     .await
    /// # }
    /// ```
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.http.max_connections = Some(connections);
        self
    }
}

/// The first socket address `addr` resolves to; an error names `setting`.
pub(super) fn resolve(
    addr: impl ToSocketAddrs,
    setting: &'static str,
) -> Result<SocketAddr, Error> {
    let mut addrs = addr.to_socket_addrs().map_err(|err| {
        let message = format!("{err}: give host:port, e.g. 127.0.0.1:8000");
        Error::config_from(setting, message, err)
    })?;
    addrs
        .next()
        .ok_or_else(|| Error::config(setting, "the address resolves to nothing"))
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use crate::Error;

    #[test]
    fn a_bad_address_is_a_configuration_error() {
        for bad in ["nowhere", "127.0.0.1:notaport", ""] {
            let err = resolve(bad, "HTTP address").unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::Config {
                        setting: "HTTP address",
                        ..
                    }
                ),
                "{bad:?}: {err}"
            );
            let text = err.to_string();
            assert!(text.starts_with("invalid HTTP address: "), "{text}");
            assert!(text.contains("host:port"), "{text}");
            assert!(std::error::Error::source(&err).is_some(), "{text}");
        }
        assert_eq!(
            resolve("127.0.0.1:0", "HTTP address")
                .unwrap()
                .ip()
                .to_string(),
            "127.0.0.1"
        );
    }
}
