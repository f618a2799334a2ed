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
//!
//! The guard is the runtime's (`toolsmith::net`, feature `fetch`): this tool adds its flags
//! and its words.

use std::time::Duration;

use toolsmith::net::{FetchError, Outbound};
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
    outbound: Outbound,
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
        let mut builder = Outbound::builder()
            .timeout(timeout)
            .max_bytes(MAX_BYTES)
            .max_redirects(MAX_REDIRECTS)
            .allow_hint("--fetch-allow")
            .user_agent(concat!("toolsmith-notes/", env!("CARGO_PKG_VERSION")));
        for host in allow {
            builder = builder.allow_host(host);
        }
        if let Some(proxy) = proxy {
            builder = builder.proxy(proxy);
        }
        let outbound = builder
            .build()
            .map_err(|err| format!("--fetch-proxy {err}"))?;
        Ok(Fetcher { outbound })
    }

    /// What `--help` says of the flags [`Fetcher::from_args`] reads (given to
    /// `Server::own_flags_help`).
    ///
    /// ```
    /// assert!(toolsmith_examples::fetch::Fetcher::HELP.contains("--fetch-allow <HOST>"));
    /// ```
    pub const HELP: &'static str = "import_url's flags (read before the server's):
      --fetch-allow <HOST>    A host import_url may reach past the public-address check
                              (repeat the flag for more)
      --fetch-timeout <SECS>  The longest a whole download may take [default: 30]
      --fetch-proxy <URL>     The HTTP proxy downloads go through";

    /// `--fetch-allow HOST` (repeatable), `--fetch-timeout SECS` and `--fetch-proxy URL`
    /// taken out of `args`, and the fetcher they make (30 s unless given; no proxy unless
    /// given); the rest of `args` is the server's command line. A proxy URL that is not one
    /// is an error.
    pub fn from_args(
        args: impl IntoIterator<Item = String>,
    ) -> Result<(Fetcher, Vec<String>), String> {
        Fetcher::from_args_and_env(args, None)
    }

    /// The variable [`Fetcher::from_args_and_env`] reads: hosts separated by commas, as
    /// many `--fetch-allow` (how a bundle's host passes the setting, `Fetcher::setting`).
    pub const ALLOW_VARIABLE: &'static str = "NOTES_FETCH_ALLOW";

    /// The setting of [`Fetcher::ALLOW_VARIABLE`], declared to the server
    /// (`Server::setting`): `--help` lists it, and a bundle asks for it.
    pub fn setting() -> toolsmith::Setting {
        toolsmith::Setting::new(
            Fetcher::ALLOW_VARIABLE,
            "Hosts import_url may reach",
            "Hosts (names or IP addresses, separated by commas) import_url may reach past the public-address check, as --fetch-allow",
        )
    }

    /// [`Fetcher::from_args`], with the hosts of `allow` too (the value of
    /// [`Fetcher::ALLOW_VARIABLE`]: separated by commas, an empty one ignored).
    ///
    /// ```
    /// use toolsmith_examples::fetch::Fetcher;
    ///
    /// let args = ["notes".to_owned(), "--fetch-allow=a.test".to_owned(), "tools".to_owned()];
    /// let (_, rest) = Fetcher::from_args_and_env(args, Some("127.0.0.1, ,b.test")).unwrap();
    /// assert_eq!(rest, ["notes", "tools"]);
    /// ```
    pub fn from_args_and_env(
        args: impl IntoIterator<Item = String>,
        allow: Option<&str>,
    ) -> Result<(Fetcher, Vec<String>), String> {
        let mut allow: Vec<String> = allow
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|host| !host.is_empty())
            .map(str::to_owned)
            .collect();
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

/// The final URL and the body, after the runtime's checks, in this tool's words.
async fn fetch(
    fetcher: &Fetcher,
    url: &str,
    progress: &Progress,
) -> Result<(String, String), ToolError> {
    let report = |so_far: usize, total: Option<u64>| {
        let total = total.map_or(MAX_BYTES as f64, |n| n as f64);
        progress.report(so_far as f64, total, format!("{so_far} bytes"));
    };
    match fetcher.outbound.get(url, report).await {
        Ok(fetched) => Ok((
            fetched.url,
            String::from_utf8_lossy(&fetched.body).into_owned(),
        )),
        Err(err) => Err(ToolError::new(words(url, err))),
    }
}

/// What `import_url` says when the fetch of `url` failed.
fn words(url: &str, err: FetchError) -> String {
    match err {
        FetchError::BadUrl { reason, .. } => format!("Not a URL: {reason}."),
        FetchError::Scheme { scheme } => {
            format!("Only http and https URLs can be imported, not {scheme}:.")
        }
        FetchError::NoHost { .. } => "The URL names no host.".to_owned(),
        FetchError::NotPublic { host, .. } => format!(
            "{host} is on this machine or a private network: imports from there are refused (start the server with --fetch-allow {host} to allow it)."
        ),
        FetchError::TooManyRedirects { max } => format!("Too many redirects: more than {max}."),
        FetchError::TooLarge { max } => format!("The document is over {max} bytes."),
        FetchError::TimedOut { after } => format!(
            "Could not fetch {url}: it took too long: it timed out after {:.1}s (the whole download, redirects included).",
            after.as_secs_f64()
        ),
        FetchError::Transport { url, reason } => format!("Could not fetch {url}: {reason}."),
        FetchError::Download { reason, .. } => format!("The download failed: {reason}."),
        // A redirect nowhere or to a bad URL, a status that is no success: the guard's words.
        other => format!("{other}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(fetcher.outbound.allows("127.0.0.1"));
        assert!(!fetcher.outbound.allows("10.0.0.1"));
        let bad = Fetcher::from_args(["notes", "--fetch-proxy", "::not a url"].map(String::from));
        let err = bad.err().expect("a bad proxy is an error");
        assert!(err.contains("--fetch-proxy"), "{err}");
        let proxied = Fetcher::from_args(["--fetch-proxy=http://127.0.0.1:3128"].map(String::from));
        assert!(proxied.unwrap().1.is_empty());
    }
}
