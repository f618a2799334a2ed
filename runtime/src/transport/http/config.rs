//! What `serve --http` is told: the address and path, the URL clients use, who may send
//! requests (`Host` and `Origin`), sessions, and the body limit; and the rmcp configuration
//! made from it, secure by default.

use std::net::SocketAddr;
use std::time::Duration;

use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use tokio_util::sync::CancellationToken;

pub(crate) const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;

pub(crate) const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);

pub(crate) const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// The hosts a loopback server always answers (DNS rebinding cannot reach them).
pub(super) const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];
/// The origins of pages served from this machine.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// Where the public endpoint's server serves `/metrics`.
#[cfg(feature = "metrics")]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Exposure {
    /// Not there (authorization is on and no scope was given, or metrics have a listener of
    /// their own): 404.
    #[default]
    Hidden,
    /// To anyone who reaches the server (no authorization).
    Open,
    /// To a bearer token with this scope (authorization is on).
    Scoped(String),
}

/// The HTTP transport's settings.
#[derive(Debug, Clone)]
pub(crate) struct HttpConfig {
    pub(crate) addr: SocketAddr,
    pub(crate) path: String,
    pub(crate) public_url: Option<String>,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) sessions: bool,
    /// Answer each POST with an SSE stream instead of one JSON body (stateless).
    pub(crate) sse: bool,
    pub(crate) max_body: usize,
    pub(crate) header_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    /// Connections open at once (default: sized for the file-descriptor limit).
    pub(crate) max_connections: Option<usize>,
    /// Sessions open at once (with `sessions`).
    pub(crate) max_sessions: Option<usize>,
    /// Authorization, when on.
    pub(crate) guard: Option<super::guard::GuardConfig>,
    /// Where requests, refusals and connections are counted, when the server has metrics.
    pub(crate) metrics: Option<crate::metrics::Metrics>,
    /// Whether and how `/metrics` is served beside the endpoint.
    #[cfg(feature = "metrics")]
    pub(crate) metrics_exposure: Exposure,
    /// More `Host`s `/metrics` answers (a scraper that uses another name).
    #[cfg(feature = "metrics")]
    pub(crate) metrics_hosts: Vec<String>,
    /// The program's own routes beside the endpoint.
    pub(crate) routes: Vec<super::RouteMaker>,
    /// The server's store, for those routes.
    pub(crate) store: Option<super::routes::SharedStore>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            path: "/mcp".into(),
            public_url: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            sessions: true,
            sse: false,
            max_body: DEFAULT_MAX_BODY,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: None,
            max_sessions: None,
            guard: None,
            metrics: None,
            #[cfg(feature = "metrics")]
            metrics_exposure: Exposure::Hidden,
            #[cfg(feature = "metrics")]
            metrics_hosts: Vec::new(),
            routes: Vec::new(),
            store: None,
        }
    }
}

impl HttpConfig {
    /// The URL clients use: as configured, else `http://<bound address><path>`.
    pub(crate) fn public_url(&self, local: SocketAddr) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{local}{}", self.path))
    }

    /// rmcp's configuration: stateless unless sessions were asked for; `Host` must be
    /// loopback, the public URL's host, or one added; `Origin`, when present, must be a
    /// loopback page, the public URL's origin, or one added.
    pub(super) fn rmcp(
        &self,
        local: SocketAddr,
        public: &str,
        stop: CancellationToken,
    ) -> StreamableHttpServerConfig {
        let hosts = self.hosts(local, public);
        let mut origins: Vec<String> = LOOPBACK_ORIGINS.iter().map(|o| (*o).to_owned()).collect();
        if let Some((origin, _)) = origin_of(public) {
            origins.push(origin);
        }
        origins.extend(
            self.allowed_origins
                .iter()
                .map(|origin| added_origin(origin)),
        );
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(self.sessions)
            .with_json_response(!self.sessions && !self.sse)
            .with_allowed_hosts(hosts)
            .with_allowed_origins(origins)
            .enforce_origin_validation()
            // The limit is enforced before rmcp reads the body (see `screen`); rmcp's own
            // check is the same bound, as a second line.
            .with_max_request_body_bytes(self.max_body)
            .with_cancellation_token(stop)
    }
}

impl HttpConfig {
    /// The `Host`s accepted: loopback, the public URL's, the bound address, and those added.
    pub(super) fn hosts(&self, local: SocketAddr, public: &str) -> Vec<String> {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect();
        if let Some((_, authority)) = origin_of(public) {
            hosts.push(authority.clone());
            hosts.push(host_of(&authority).to_owned());
        }
        if !local.ip().is_unspecified() {
            hosts.push(local.to_string());
        }
        hosts.extend(self.allowed_hosts.iter().cloned());
        hosts.dedup();
        hosts
    }
}

/// `scheme://authority` (with the scheme's default port when the URL names none, as an
/// origin without a port would match any port) and the authority of a URL.
fn origin_of(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?.to_owned();
    if authority.is_empty() {
        return None;
    }
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, port)| port.chars().all(|c| c.is_ascii_digit()));
    let origin = match (has_port, scheme.to_ascii_lowercase().as_str()) {
        (false, "https") => format!("{scheme}://{authority}:443"),
        (false, "http") => format!("{scheme}://{authority}:80"),
        _ => format!("{scheme}://{authority}"),
    };
    Some((origin, authority))
}

/// An origin added with `--allowed-origin`, as rmcp compares it: with its scheme's default
/// port when it names none (rmcp takes a missing port for "any port"); `:*` keeps any port.
fn added_origin(origin: &str) -> String {
    if origin.ends_with(":*") {
        return origin.to_owned();
    }
    origin_of(origin).map_or_else(|| origin.to_owned(), |(origin, _)| origin)
}

/// The host of an authority, without its port (`[::1]:80` gives `::1`).
fn host_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(host, _)| host)
}

#[cfg(test)]
mod tests {
    use super::{added_origin, host_of, origin_of};

    #[test]
    fn an_added_origin_without_a_port_means_the_default_port() {
        assert_eq!(
            added_origin("https://app.example.com"),
            "https://app.example.com:443"
        );
        assert_eq!(
            added_origin("http://app.example.com"),
            "http://app.example.com:80"
        );
        assert_eq!(
            added_origin("https://app.example.com:8443"),
            "https://app.example.com:8443"
        );
        assert_eq!(
            added_origin("https://app.example.com:*"),
            "https://app.example.com:*"
        );
    }

    #[test]
    fn origins_and_hosts_are_read_from_urls() {
        assert_eq!(
            origin_of("https://mcp.example.com/mcp"),
            Some((
                "https://mcp.example.com:443".into(),
                "mcp.example.com".into()
            ))
        );
        assert_eq!(
            origin_of("http://10.0.0.2:8080/x?y"),
            Some(("http://10.0.0.2:8080".into(), "10.0.0.2:8080".into()))
        );
        assert_eq!(origin_of("not a url"), None);
        assert_eq!(host_of("example.com:443"), "example.com");
        assert_eq!(host_of("[::1]:80"), "::1");
        assert_eq!(host_of("example.com"), "example.com");
    }
}
