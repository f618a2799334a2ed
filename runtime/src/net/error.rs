//! What a guarded fetch that failed says: in words, what was wrong and what was expected.

use std::time::Duration;

/// Why [`Outbound::get`](super::Outbound::get) fetched nothing. Its text says what was
/// wrong; a caller with words of its own (a tool's, a page's) matches on the variant.
///
/// ```
/// use toolsmith::net::FetchError;
///
/// let err = FetchError::TooManyRedirects { max: 5 };
/// assert_eq!(err.to_string(), "too many redirects: more than 5");
/// let err = FetchError::Status { url: "https://example.com/".into(), status: 404 };
/// assert_eq!(err.to_string(), "https://example.com/ answered 404 Not Found");
/// let err = FetchError::NotPublic { host: "10.0.0.1".into(), hint: Some("--signin-allow-host".into()) };
/// assert_eq!(
///     err.to_string(),
///     "10.0.0.1 is on this machine or a private network: refused (allow it with --signin-allow-host 10.0.0.1)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchError {
    /// The text is not a URL.
    BadUrl { url: String, reason: String },
    /// A scheme other than `http` and `https` (`file`, `ftp`, ...).
    Scheme { scheme: String },
    /// A URL without a host.
    NoHost { url: String },
    /// A host on this machine or a private network (an IP address that is not public, or a
    /// name with no public address), not in the allowed hosts. `hint`: how it is allowed
    /// (a flag), as [`OutboundBuilder::allow_hint`](super::OutboundBuilder::allow_hint)
    /// gave it.
    NotPublic { host: String, hint: Option<String> },
    /// A redirect without a `Location`.
    RedirectNowhere { url: String },
    /// A redirect whose `Location` is not a URL.
    BadRedirect { url: String, reason: String },
    /// More redirects than allowed.
    TooManyRedirects { max: usize },
    /// A body larger than the cap, in bytes.
    TooLarge { max: usize },
    /// The whole download (every redirect, every header, the body) took longer than this.
    TimedOut { after: Duration },
    /// The request failed before an answer (connection refused, TLS, a protocol error, ...):
    /// the transport's reason.
    Transport { url: String, reason: String },
    /// The body broke off while it was read: the transport's reason.
    Download { url: String, reason: String },
    /// An answer that is neither a success (2xx) nor a redirect.
    Status { url: String, status: u16 },
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::BadUrl { url, reason } => write!(f, "{url} is not a URL: {reason}"),
            FetchError::Scheme { scheme } => {
                write!(f, "only http and https URLs are fetched, not {scheme}:")
            }
            FetchError::NoHost { url } => write!(f, "{url} names no host"),
            FetchError::NotPublic { host, hint } => {
                write!(f, "{host} is on this machine or a private network: refused")?;
                match hint {
                    Some(hint) => write!(f, " (allow it with {hint} {host})"),
                    None => write!(f, " (it is not among the allowed hosts)"),
                }
            }
            FetchError::RedirectNowhere { url } => write!(f, "{url} redirects nowhere"),
            FetchError::BadRedirect { url, reason } => {
                write!(f, "{url} redirects to a bad URL: {reason}")
            }
            FetchError::TooManyRedirects { max } => {
                write!(f, "too many redirects: more than {max}")
            }
            FetchError::TooLarge { max } => write!(f, "the document is over {max} bytes"),
            FetchError::TimedOut { after } => write!(
                f,
                "it took too long: it timed out after {:.1}s (the whole download, redirects included)",
                after.as_secs_f64()
            ),
            FetchError::Transport { url, reason } => write!(f, "could not fetch {url}: {reason}"),
            FetchError::Download { url, reason } => {
                write!(f, "the download of {url} failed: {reason}")
            }
            FetchError::Status { url, status } => {
                let reason = reqwest::StatusCode::from_u16(*status)
                    .ok()
                    .and_then(|status| status.canonical_reason());
                write!(f, "{url} answered {status}")?;
                reason.map_or(Ok(()), |reason| write!(f, " {reason}"))
            }
        }
    }
}

impl std::error::Error for FetchError {}

/// Why a request failed, in a few words: "it took too long" for a timeout, else the
/// innermost reason.
pub(crate) fn reason(err: &reqwest::Error) -> String {
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

/// The host the resolver refused, if that is why `err` happened.
pub(super) fn refused_host(err: &reqwest::Error) -> Option<String> {
    let mut source: Option<&dyn std::error::Error> = Some(err);
    while let Some(err) = source {
        if let Some(refused) = err.downcast_ref::<super::address::Refused>() {
            return Some(refused.0.clone());
        }
        source = err.source();
    }
    None
}
