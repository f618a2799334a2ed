//! `import_url`, the tutorial's open-world tool: it reaches outside the server's own data to
//! fetch a web page or a text file and make a note of it. Such a tool is where servers get
//! hurt (server-side request forgery, unbounded downloads, slow upstreams), so it shows the
//! safe pattern:
//!
//! - only `http` and `https`;
//! - a connect timeout and a total timeout;
//! - at most 1 MiB, read as a stream and stopped at the cap;
//! - at most 5 redirects, each one checked again;
//! - no address in the loopback, private, link-local (cloud metadata) or other
//!   non-public ranges, unless the server was started with `--fetch-allow HOST`; the check
//!   is made on the addresses the connection uses (a resolver of its own), so a name that
//!   resolves to a public address when checked and a private one when connecting cannot
//!   slip through;
//! - cancellation stops the download, and progress is reported per chunk.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use toolsmith::{Progress, State, ToolError, context::Cancellation, tool};

use crate::store::{Note, Notes};

mod page;

use page::title_and_text;

/// The largest body `import_url` reads.
pub const MAX_BYTES: usize = 1024 * 1024;
/// The most redirects `import_url` follows.
pub const MAX_REDIRECTS: usize = 5;

/// How `import_url` reaches out: the hosts allowed past the address check, and the
/// timeouts. A server state (`Server::state(Fetcher::new(...))`).
pub struct Fetcher {
    client: reqwest::Client,
    allow: Arc<Vec<String>>,
    /// The bound on a whole download: every redirect, every header and the body.
    timeout: Duration,
}

impl Fetcher {
    /// A fetcher that refuses non-public addresses except for the hosts in `allow` (names
    /// or IP addresses, as they appear in URLs), with a `timeout` for a whole download.
    ///
    /// It uses no proxy, whatever the environment says (`HTTP_PROXY`, `ALL_PROXY`, ...): a
    /// proxy resolves the names it is given, out of the address guard's sight.
    pub fn new(allow: Vec<String>, timeout: Duration) -> Fetcher {
        Fetcher::build(allow, timeout, None).expect("no proxy to misread")
    }

    /// The same, through the forward proxy at `proxy` (`http://HOST:PORT`), as
    /// `--fetch-proxy` asks. Through a proxy the guard still refuses URLs that name a
    /// non-public IP address, but a *name* is resolved by the proxy: what it reaches is the
    /// proxy's to restrict.
    pub fn with_proxy(
        allow: Vec<String>,
        timeout: Duration,
        proxy: &str,
    ) -> Result<Fetcher, String> {
        Fetcher::build(allow, timeout, Some(proxy))
    }

    fn build(
        allow: Vec<String>,
        timeout: Duration,
        proxy: Option<&str>,
    ) -> Result<Fetcher, String> {
        let allow = Arc::new(allow);
        // reqwest's rustls has no cryptography of its own: ring's, unless one is installed.
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        let mut builder = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5).min(timeout))
            .timeout(timeout)
            // Redirects are followed by hand, each one checked.
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(PublicOnly {
                allow: allow.clone(),
            }))
            .user_agent(concat!("toolsmith-notes/", env!("CARGO_PKG_VERSION")));
        builder = match proxy {
            // Never the environment's proxies: only one given explicitly.
            None => builder.no_proxy(),
            Some(proxy) => builder.no_proxy().proxy(
                reqwest::Proxy::all(proxy)
                    .map_err(|err| format!("--fetch-proxy {proxy}: not a proxy URL ({err})"))?,
            ),
        };
        let client = builder.build().expect("a TLS backend is compiled in");
        Ok(Fetcher {
            client,
            allow,
            timeout,
        })
    }

    /// `--fetch-allow HOST` (repeatable), `--fetch-timeout SECS` and `--fetch-proxy URL`
    /// taken out of `args`, and the fetcher they make (30 s unless given; no proxy unless
    /// given); the rest of `args` is the server's command line. A proxy URL that is not one
    /// is an error.
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
    ) -> Result<(Fetcher, Vec<String>), String> {
        let mut allow = Vec::new();
        let mut proxy = None;
        let mut timeout = Duration::from_secs(30);
        let mut rest = Vec::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) => (flag.to_owned(), Some(value.to_owned())),
                None => (arg.clone(), None),
            };
            match flag.as_str() {
                "--fetch-allow" => allow.extend(inline.or_else(|| args.next())),
                "--fetch-proxy" => proxy = inline.or_else(|| args.next()),
                "--fetch-timeout" => {
                    let secs = inline.or_else(|| args.next());
                    if let Some(secs) = secs.and_then(|s| s.parse::<f64>().ok())
                        && secs > 0.0
                    {
                        timeout = Duration::from_secs_f64(secs);
                    }
                }
                _ => rest.push(arg),
            }
        }
        let fetcher = match proxy {
            Some(proxy) => Fetcher::with_proxy(allow, timeout, &proxy)?,
            None => Fetcher::new(allow, timeout),
        };
        Ok((fetcher, rest))
    }

    fn allowed(&self, host: &str) -> bool {
        allowed(&self.allow, host)
    }
}

impl Default for Fetcher {
    /// No host allowed past the address check; 30 s for a whole download.
    fn default() -> Fetcher {
        Fetcher::new(Vec::new(), Duration::from_secs(30))
    }
}

/// Create a note from a web page or a text file: its title (the page's `<title>`, else the
/// first line) and its text. Only `http` and `https` URLs; at most 1 MiB; at most 5
/// redirects; addresses on this machine or a private network are refused.
///
/// # Arguments
/// * `url` - The page or file to import (`http` or `https`).
#[tool(destructive = false, open_world, title = "Import URL", category = "notes", tags = ["write", "web"])]
pub async fn import_url(
    notes: State<Notes>,
    fetcher: State<Fetcher>,
    url: String,
    progress: Progress,
    cancel: Cancellation,
) -> Result<Note, ToolError> {
    let (url, body) = tokio::select! {
        fetched = fetch(&fetcher, &url, &progress) => fetched?,
        () = cancel.cancelled() => return Err(ToolError::new("The import was cancelled.")),
    };
    let (title, text) = title_and_text(&body, &url);
    Ok(notes
        .lock()
        .create(title, text, vec!["imported".to_owned()]))
}

/// The final URL and the body, after the checks, within the fetcher's timeout for the whole
/// download (every redirect included).
async fn fetch(
    fetcher: &Fetcher,
    url: &str,
    progress: &Progress,
) -> Result<(reqwest::Url, String), ToolError> {
    match tokio::time::timeout(fetcher.timeout, fetch_hops(fetcher, url, progress)).await {
        Ok(fetched) => fetched,
        Err(_) => Err(ToolError::new(format!(
            "Could not fetch {url}: it took too long: it timed out after {:.1}s (the whole download, redirects included).",
            fetcher.timeout.as_secs_f64()
        ))),
    }
}

/// Each hop of [`fetch`].
async fn fetch_hops(
    fetcher: &Fetcher,
    url: &str,
    progress: &Progress,
) -> Result<(reqwest::Url, String), ToolError> {
    let mut url =
        reqwest::Url::parse(url).map_err(|err| ToolError::new(format!("Not a URL: {err}.")))?;
    for _ in 0..=MAX_REDIRECTS {
        check(fetcher, &url)?;
        let response = fetcher
            .client
            .get(url.clone())
            .send()
            .await
            .map_err(|err| ToolError::new(format!("Could not fetch {url}: {}.", reason(&err))))?;
        if response.status().is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .ok_or_else(|| ToolError::new(format!("{url} redirects nowhere.")))?;
            url = url
                .join(location)
                .map_err(|err| ToolError::new(format!("{url} redirects to a bad URL: {err}.")))?;
            continue;
        }
        if !response.status().is_success() {
            return Err(ToolError::new(format!(
                "{url} answered {}.",
                response.status()
            )));
        }
        let body = read_capped(response, progress).await?;
        return Ok((url, body));
    }
    Err(ToolError::new(format!(
        "Too many redirects: more than {MAX_REDIRECTS}."
    )))
}

/// Refuses a URL that is not `http`/`https`, or names a non-public IP address (a name is
/// checked when it is resolved, see [`PublicOnly`]).
fn check(fetcher: &Fetcher, url: &reqwest::Url) -> Result<(), ToolError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ToolError::new(format!(
            "Only http and https URLs can be imported, not {}:.",
            url.scheme()
        )));
    }
    let host = url
        .host_str()
        .ok_or_else(|| ToolError::new("The URL names no host."))?;
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = literal.parse::<IpAddr>()
        && !public(ip)
        && !fetcher.allowed(host)
    {
        return Err(refused(host));
    }
    Ok(())
}

fn refused(host: &str) -> ToolError {
    ToolError::new(format!(
        "{host} is on this machine or a private network: imports from there are refused (start the server with --fetch-allow {host} to allow it)."
    ))
}

/// The body, read chunk by chunk and stopped at [`MAX_BYTES`].
async fn read_capped(
    mut response: reqwest::Response,
    progress: &Progress,
) -> Result<String, ToolError> {
    let too_large = || ToolError::new(format!("The document is over {MAX_BYTES} bytes."));
    if response
        .content_length()
        .is_some_and(|n| n > MAX_BYTES as u64)
    {
        return Err(too_large());
    }
    let total = response
        .content_length()
        .map_or(MAX_BYTES as f64, |n| n as f64);
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|err| ToolError::new(format!("The download failed: {}.", reason(&err))))?
    {
        if body.len() + chunk.len() > MAX_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
        progress.report(body.len() as f64, total, format!("{} bytes", body.len()));
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// Why a request failed, in a few words (a timeout says so).
fn reason(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        return "it took too long".to_owned();
    }
    let mut source: Option<&dyn std::error::Error> = Some(err);
    let mut last = err.to_string();
    while let Some(err) = source {
        last = err.to_string();
        source = err.source();
    }
    last
}

/// Whether `host` (as it appears in a URL) is allowed past the address check.
fn allowed(allow: &[String], host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    allow.iter().any(|a| {
        let a = a.trim_start_matches('[').trim_end_matches(']');
        a.eq_ignore_ascii_case(bare)
    })
}

/// Whether `ip` is a public address: not loopback, private, link-local (where cloud
/// metadata services live), shared, documentation, multicast, unspecified or reserved.
pub fn public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)) // shared (carrier-grade NAT)
                || (a == 192 && b == 0) // IETF protocol assignments
                || (a == 198 && (b == 18 || b == 19)) // benchmarking
                || a >= 240) // reserved
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return public(IpAddr::V4(v4));
            }
            let segments = v6.segments();
            // The deprecated IPv4-compatible range (`::a.b.c.d`, ::/96, RFC 4291 §2.5.5.1),
            // with :: and ::1: never a public address to fetch from.
            if segments[..6] == [0; 6] {
                return false;
            }
            let first = segments[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local
                || (first & 0xffc0) == 0xfe80 // link-local
                || first == 0x2001 && v6.segments()[1] == 0x0db8 // documentation
                || first == 0x0064 && v6.segments()[1] == 0xff9b) // NAT64
        }
    }
}

/// The resolver of `import_url`'s connections: a name resolves to its public addresses
/// only (all of them for a host allowed with `--fetch-allow`); none left is an error.
struct PublicOnly {
    allow: Arc<Vec<String>>,
}

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow = self.allow.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let all = allowed(&allow, &host);
            let kept: Vec<SocketAddr> = addrs
                .into_iter()
                .filter(|addr| all || public(addr.ip()))
                .collect();
            if kept.is_empty() {
                let why = refused(&host).to_string();
                return Err(why.into());
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_pass() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::127.0.0.1",
            "::10.0.0.1",
            "::8.8.8.8",
            "::",
        ] {
            assert!(!public(private.parse().unwrap()), "{private}");
        }
        for open in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"] {
            assert!(public(open.parse().unwrap()), "{open}");
        }
    }

    #[test]
    fn the_fetch_flags_are_taken_out_of_the_command_line() {
        let args = [
            "notes",
            "serve",
            "--fetch-allow",
            "127.0.0.1",
            "--fetch-timeout=2",
            "--http",
            "x",
        ];
        let (fetcher, rest) = Fetcher::from_args(args.map(String::from)).unwrap();
        assert_eq!(rest, ["notes", "serve", "--http", "x"]);
        assert!(fetcher.allowed("127.0.0.1"));
        assert!(!fetcher.allowed("10.0.0.1"));
        let bad = Fetcher::from_args(["notes", "--fetch-proxy", "::not a url"].map(String::from));
        let err = bad.err().expect("a bad proxy is an error");
        assert!(err.contains("--fetch-proxy"), "{err}");
        let proxied = Fetcher::from_args(["--fetch-proxy=http://127.0.0.1:3128"].map(String::from));
        assert!(proxied.unwrap().1.is_empty());
    }
}
