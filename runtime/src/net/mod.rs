//! Fetching from the open web without being turned against the network the server runs in
//! (server-side request forgery), without unbounded downloads and without hanging on a slow
//! upstream (feature `fetch`). Whatever fetches a URL a client gave (a tool importing a page,
//! the sign-in reading a client's metadata document) goes through an [`Outbound`]:
//!
//! - only `http` and `https`;
//! - no address in the loopback, private, link-local (cloud metadata) or other non-public
//!   ranges ([`is_public`]), unless the host is allowed by name; the check is made on the
//!   addresses the connection uses (a resolver of its own), so a name that resolves to a
//!   public address when checked and a private one when connecting cannot slip through;
//! - redirects followed by hand, at most 5 by default, each one checked again;
//! - a body read as a stream and stopped at its cap;
//! - one timeout for the whole download, redirects included;
//! - never the environment's proxy (`HTTP_PROXY`, ...): one only when given.
//!
//! ```
//! use std::time::Duration;
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! use toolsmith::net::{FetchError, Outbound};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // A page on loopback.
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//! let addr = listener.local_addr().unwrap();
//! tokio::spawn(async move {
//!     let (mut stream, _) = listener.accept().await.unwrap();
//!     let _ = stream.read(&mut [0u8; 1024]).await;
//!     let page = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello";
//!     stream.write_all(page.as_bytes()).await.unwrap();
//! });
//! let url = format!("http://{addr}/page");
//!
//! // Loopback is refused unless allowed.
//! let guarded = Outbound::builder().build().unwrap();
//! let refused = guarded.get(&url, |_, _| {}).await.unwrap_err();
//! assert!(matches!(refused, FetchError::NotPublic { .. }), "{refused}");
//!
//! let allowed = Outbound::builder()
//!     .allow_host("127.0.0.1")
//!     .timeout(Duration::from_secs(5))
//!     .build()
//!     .unwrap();
//! let page = allowed.get(&url, |_, _| {}).await.unwrap();
//! assert_eq!(page.status, 200);
//! assert_eq!(page.content_type.as_deref(), Some("text/plain"));
//! assert_eq!(page.body, b"hello");
//! # }
//! ```

mod address;
mod error;
mod get;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

pub use address::is_public;
pub use error::FetchError;
#[cfg(feature = "signin")]
pub(crate) use error::reason;

/// A guarded HTTP client: what may be fetched, how much, for how long (see
/// [the module](self)). Cheap to clone (one connection pool).
///
/// ```
/// use toolsmith::net::Outbound;
///
/// let outbound = Outbound::builder().allow_host("127.0.0.1").build().unwrap();
/// assert!(outbound.allows("127.0.0.1"));
/// assert!(!outbound.allows("10.0.0.1"));
/// ```
#[derive(Clone)]
pub struct Outbound {
    client: reqwest::Client,
    allow: Arc<Vec<String>>,
    hint: Option<String>,
    timeout: Duration,
    max_bytes: usize,
    max_redirects: usize,
}

/// How an [`Outbound`] is made: [`Outbound::builder`], each setting optional.
///
/// ```
/// use std::time::Duration;
/// use toolsmith::net::Outbound;
///
/// let outbound = Outbound::builder()
///     .timeout(Duration::from_secs(10))
///     .max_bytes(64 * 1024)
///     .max_redirects(2)
///     .user_agent("my-server/1.0")
///     .build()
///     .unwrap();
/// assert_eq!(outbound.max_bytes(), 64 * 1024);
/// ```
#[derive(Debug, Clone)]
pub struct OutboundBuilder {
    allow: Vec<String>,
    hint: Option<String>,
    timeout: Duration,
    max_bytes: usize,
    max_redirects: usize,
    proxy: Option<String>,
    user_agent: String,
}

/// What a fetch brought back: the final URL (after redirects), its status (2xx), the
/// headers a caller needs, and the whole body.
///
/// ```
/// # async fn f(outbound: toolsmith::net::Outbound) -> Result<(), toolsmith::net::FetchError> {
/// let fetched = outbound.get("https://example.com/", |_, _| {}).await?;
/// assert!((200..300).contains(&fetched.status));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fetched {
    /// The URL the body came from: the last redirect's target, or the URL asked.
    pub url: String,
    /// The HTTP status, a success (2xx).
    pub status: u16,
    /// `Content-Type`, when given (and readable as text).
    pub content_type: Option<String>,
    /// `Cache-Control`, when given (and readable as text).
    pub cache_control: Option<String>,
    /// The body, at most [`Outbound::max_bytes`] bytes.
    pub body: Vec<u8>,
}

impl Outbound {
    /// A builder with the defaults: no host allowed past the address check, 30 s for a
    /// whole download, 1 MiB, 5 redirects, no proxy, the user agent `toolsmith/VERSION`.
    ///
    /// ```
    /// let outbound = toolsmith::net::Outbound::builder().build().unwrap();
    /// assert_eq!(outbound.timeout(), std::time::Duration::from_secs(30));
    /// assert_eq!((outbound.max_bytes(), outbound.max_redirects()), (1024 * 1024, 5));
    /// ```
    pub fn builder() -> OutboundBuilder {
        OutboundBuilder {
            allow: Vec::new(),
            hint: None,
            timeout: Duration::from_secs(30),
            max_bytes: 1024 * 1024,
            max_redirects: 5,
            proxy: None,
            user_agent: concat!("toolsmith/", env!("CARGO_PKG_VERSION")).to_owned(),
        }
    }

    /// Whether `host` (a name or an IP address, as it appears in a URL) is allowed past the
    /// address check.
    ///
    /// ```
    /// let outbound = toolsmith::net::Outbound::builder().allow_host("[::1]").build().unwrap();
    /// assert!(outbound.allows("[::1]") && outbound.allows("::1"));
    /// ```
    pub fn allows(&self, host: &str) -> bool {
        address::allowed(&self.allow, host)
    }

    /// The bound on a whole download.
    ///
    /// ```
    /// use std::time::Duration;
    /// let outbound = toolsmith::net::Outbound::builder().timeout(Duration::from_secs(2)).build().unwrap();
    /// assert_eq!(outbound.timeout(), Duration::from_secs(2));
    /// ```
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The largest body read, in bytes.
    ///
    /// ```
    /// let outbound = toolsmith::net::Outbound::builder().max_bytes(10).build().unwrap();
    /// assert_eq!(outbound.max_bytes(), 10);
    /// ```
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The most redirects followed.
    ///
    /// ```
    /// let outbound = toolsmith::net::Outbound::builder().max_redirects(0).build().unwrap();
    /// assert_eq!(outbound.max_redirects(), 0);
    /// ```
    pub fn max_redirects(&self) -> usize {
        self.max_redirects
    }
}

impl OutboundBuilder {
    /// Allows `host` (a name or an IP address, as it appears in URLs) past the address
    /// check: all its addresses, loopback and private ones too (tests, a service on the
    /// private network). Repeatable.
    ///
    /// ```
    /// let outbound = toolsmith::net::Outbound::builder().allow_host("localhost").build().unwrap();
    /// assert!(outbound.allows("LOCALHOST"));
    /// ```
    pub fn allow_host(mut self, host: impl Into<String>) -> OutboundBuilder {
        self.allow.push(host.into());
        self
    }

    /// How a refused host is allowed, named in [`FetchError::NotPublic`]'s text: a flag such
    /// as `--fetch-allow` (the text then says `allow it with --fetch-allow HOST`).
    ///
    /// ```
    /// use toolsmith::net::{FetchError, Outbound};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let outbound = Outbound::builder().allow_hint("--fetch-allow").build().unwrap();
    /// let err = outbound.get("http://10.0.0.1/", |_, _| {}).await.unwrap_err();
    /// assert!(err.to_string().ends_with("(allow it with --fetch-allow 10.0.0.1)"), "{err}");
    /// # }
    /// ```
    pub fn allow_hint(mut self, hint: impl Into<String>) -> OutboundBuilder {
        self.hint = Some(hint.into());
        self
    }

    /// The bound on a whole download: every redirect, every header and the body (30 s
    /// unless set). Connecting is bounded by 5 s, or by this when shorter.
    ///
    /// ```
    /// use std::time::Duration;
    /// let outbound = toolsmith::net::Outbound::builder().timeout(Duration::from_millis(1500)).build().unwrap();
    /// assert_eq!(outbound.timeout(), Duration::from_millis(1500));
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> OutboundBuilder {
        self.timeout = timeout;
        self
    }

    /// The largest body read, in bytes (1 MiB unless set): a larger one is
    /// [`FetchError::TooLarge`], stopped as soon as it is known.
    ///
    /// ```
    /// let outbound = toolsmith::net::Outbound::builder().max_bytes(4096).build().unwrap();
    /// assert_eq!(outbound.max_bytes(), 4096);
    /// ```
    pub fn max_bytes(mut self, max_bytes: usize) -> OutboundBuilder {
        self.max_bytes = max_bytes;
        self
    }

    /// The most redirects followed (5 unless set), each one checked as the first URL was.
    ///
    /// ```
    /// let outbound = toolsmith::net::Outbound::builder().max_redirects(1).build().unwrap();
    /// assert_eq!(outbound.max_redirects(), 1);
    /// ```
    pub fn max_redirects(mut self, max_redirects: usize) -> OutboundBuilder {
        self.max_redirects = max_redirects;
        self
    }

    /// Fetches through the forward proxy at `proxy` (`http://HOST:PORT`). Without it no
    /// proxy is used, whatever the environment says: a proxy resolves the names it is given,
    /// out of the address guard's sight. Through a proxy a URL naming a non-public IP
    /// address is still refused, but a *name* is resolved by the proxy: what it reaches is
    /// the proxy's to restrict.
    ///
    /// ```
    /// let bad = toolsmith::net::Outbound::builder().proxy("::not a url").build();
    /// assert!(bad.is_err());
    /// ```
    pub fn proxy(mut self, proxy: impl Into<String>) -> OutboundBuilder {
        self.proxy = Some(proxy.into());
        self
    }

    /// The `User-Agent` sent (`toolsmith/VERSION` unless set).
    ///
    /// ```
    /// let built = toolsmith::net::Outbound::builder().user_agent("notes/1.0").build();
    /// assert!(built.is_ok());
    /// let refused = toolsmith::net::Outbound::builder().user_agent("no\nnewlines").build();
    /// assert!(refused.is_err(), "a header value cannot hold a newline");
    /// ```
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> OutboundBuilder {
        self.user_agent = user_agent.into();
        self
    }

    /// The client: an error that says why when the proxy is not a proxy URL (or the user
    /// agent not a header value).
    ///
    /// ```
    /// let err = toolsmith::net::Outbound::builder().proxy("::not a url").build().err().unwrap();
    /// assert!(err.starts_with("::not a url: not a proxy URL"), "{err}");
    /// ```
    pub fn build(self) -> Result<Outbound, String> {
        crate::tls::install_crypto_provider();
        let allow = Arc::new(self.allow);
        let mut builder = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5).min(self.timeout))
            .timeout(self.timeout)
            // Redirects are followed by hand, each one checked.
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(address::PublicOnly {
                allow: allow.clone(),
            }))
            .user_agent(self.user_agent)
            // Never the environment's proxies: only one given explicitly.
            .no_proxy();
        if let Some(proxy) = &self.proxy {
            let proxy = reqwest::Proxy::all(proxy)
                .map_err(|err| format!("{proxy}: not a proxy URL ({err})"))?;
            builder = builder.proxy(proxy);
        }
        let client = builder
            .build()
            .map_err(|err| format!("the HTTP client could not be made: {err}"))?;
        Ok(Outbound {
            client,
            allow,
            hint: self.hint,
            timeout: self.timeout,
            max_bytes: self.max_bytes,
            max_redirects: self.max_redirects,
        })
    }
}
