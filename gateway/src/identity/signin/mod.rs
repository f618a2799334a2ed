//! Per-user sign-in at an upstream that has its own authorization server: the gateway is
//! each user's OAuth client there. A call by a user with no token of the upstream's asks them
//! (URL-mode elicitation) to open the gateway's start page, which sends their browser to the
//! upstream's sign-in; the gateway's callback keeps the tokens it got (sealed, keyed by user
//! and upstream) and the call goes on.
//!
//! - `discover.rs`: the upstream's 401 challenge, its protected resource metadata (RFC 9728)
//!   and its authorization server's metadata (RFC 8414, OpenID Connect discovery);
//! - `register.rs`: the gateway's client there (configured, or registered once per upstream,
//!   RFC 7591) and the token endpoint (code, refresh, revocation);
//! - `flow.rs`: the tokens of a caller, refreshed when expired, else the sign-in (state, PKCE,
//!   the elicitation and the bounded wait);
//! - `callback.rs`: the start and callback pages;
//! - `vault.rs`: AES-256-GCM at rest;
//! - `signout.rs`: signing out (revoked, forgotten); `tool.rs`: the `{prefix}sign_out` tool.

mod callback;
mod discover;
mod flow;
mod register;
mod signout;
mod tool;
mod vault;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::OnceCell;
use toolsmith::ToolError;
use toolsmith::context::Caller;

pub(crate) use callback::routes_for;
pub(crate) use tool::SignOut;

use discover::Metadata;
use vault::{Vault, digest};

/// How long the gateway waits, by default, for a user to finish signing in.
pub const DEFAULT_SIGN_IN_WAIT: Duration = Duration::from_secs(300);

/// Per-user sign-in at an HTTP upstream that has its own authorization server (its 401 names
/// it: `WWW-Authenticate: Bearer resource_metadata="..."`): the gateway signs each user in
/// there as its OAuth client (PKCE, `resource`; its client configured, or registered once,
/// RFC 7591) and calls as that user. See [`Upstream::sign_in`](crate::Upstream::sign_in).
///
/// The users' tokens are kept in the server's task store (shared by replicas), sealed with
/// AES-256-GCM under `token_key`: base64 of 32 random bytes, `${NAME}` an environment
/// variable and `${file:PATH}` a file (`openssl rand -base64 32`). The sign-in's pages are
/// served beside the HTTP endpoint: `GET /upstream/start` and `GET /upstream/callback`, the
/// redirect URI registered (the gateway's public origin + `/upstream/callback`, or
/// [`callback_url`](UpstreamSignIn::callback_url)).
///
/// ```
/// use std::time::Duration;
/// use toolsmith_gateway::UpstreamSignIn;
///
/// let sign_in = UpstreamSignIn::new("${GATEWAY_TOKEN_KEY}")
///     .scopes(["tickets:read", "tickets:write"])
///     .client("gateway-at-tickets", Some("${TICKETS_CLIENT_SECRET}"))
///     .callback_url("https://gateway.example/upstream/callback")
///     .wait(Duration::from_secs(120));
/// assert_eq!(sign_in.wait_limit(), Duration::from_secs(120));
/// // Its Debug shows no secret.
/// assert!(!format!("{sign_in:?}").contains("TICKETS_CLIENT_SECRET"));
/// ```
#[derive(Clone)]
pub struct UpstreamSignIn {
    pub(crate) token_key: String,
    pub(crate) scopes: Vec<String>,
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret: Option<String>,
    pub(crate) callback_url: Option<String>,
    pub(crate) wait: Duration,
}

impl UpstreamSignIn {
    /// Sign-in with the users' tokens sealed under `token_key` (base64 of 32 bytes; `${NAME}`
    /// or `${file:PATH}`, read at connect).
    ///
    /// ```
    /// let sign_in = toolsmith_gateway::UpstreamSignIn::new("${file:/etc/gateway/token.key}");
    /// assert_eq!(sign_in.wait_limit(), toolsmith_gateway::DEFAULT_SIGN_IN_WAIT);
    /// ```
    pub fn new(token_key: impl Into<String>) -> Self {
        UpstreamSignIn {
            token_key: token_key.into(),
            scopes: Vec::new(),
            client_id: None,
            client_secret: None,
            callback_url: None,
            wait: DEFAULT_SIGN_IN_WAIT,
        }
    }

    /// The scopes asked for (default: those the upstream's challenge names, else none).
    ///
    /// ```
    /// let sign_in = toolsmith_gateway::UpstreamSignIn::new("${KEY}").scopes(["repo"]);
    /// # let _ = sign_in;
    /// ```
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The gateway's client at the upstream's authorization server, registered there by
    /// hand (its secret, if it has one, sent as `client_secret_basic`; `${NAME}` or
    /// `${file:PATH}`). Without it the gateway registers itself (RFC 7591) once per upstream.
    ///
    /// ```
    /// let sign_in = toolsmith_gateway::UpstreamSignIn::new("${KEY}").client("gw", None::<String>);
    /// # let _ = sign_in;
    /// ```
    pub fn client(mut self, id: impl Into<String>, secret: Option<impl Into<String>>) -> Self {
        self.client_id = Some(id.into());
        self.client_secret = secret.map(Into::into);
        self
    }

    /// The callback's public URL (ending in `/upstream/callback`), when the gateway's own
    /// origin is not the one browsers reach (behind a proxy).
    ///
    /// ```
    /// let sign_in = toolsmith_gateway::UpstreamSignIn::new("${KEY}")
    ///     .callback_url("https://gw.example/upstream/callback");
    /// # let _ = sign_in;
    /// ```
    pub fn callback_url(mut self, url: impl Into<String>) -> Self {
        self.callback_url = Some(url.into());
        self
    }

    /// How long a call waits for its user to finish signing in (default 5 minutes).
    ///
    /// ```
    /// let sign_in = toolsmith_gateway::UpstreamSignIn::new("${KEY}").wait(std::time::Duration::from_secs(60));
    /// assert_eq!(sign_in.wait_limit().as_secs(), 60);
    /// ```
    pub fn wait(mut self, limit: Duration) -> Self {
        self.wait = limit;
        self
    }

    /// How long a call waits for its user to sign in.
    pub fn wait_limit(&self) -> Duration {
        self.wait
    }
}

/// Never the key or the secret.
impl std::fmt::Debug for UpstreamSignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamSignIn")
            .field("scopes", &self.scopes)
            .field("client_id", &self.client_id)
            .field("callback_url", &self.callback_url)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl crate::Upstream {
    /// Calls it as each user, signed in at its own authorization server (see
    /// [`UpstreamSignIn`]): an HTTP upstream's. A user with no token of its own there is
    /// asked (URL-mode elicitation) to sign in through the gateway's start page; one whose
    /// client cannot open a URL gets a tool error carrying the link. Its tools get a
    /// `{prefix}sign_out` beside them. Needs the gateway served over HTTP (the sign-in's
    /// pages), or [`callback_url`](UpstreamSignIn::callback_url) naming one that is.
    ///
    /// ```
    /// use toolsmith_gateway::{Upstream, UpstreamSignIn};
    ///
    /// let files = Upstream::http("files", "https://files.example/mcp")
    ///     .sign_in(UpstreamSignIn::new("${GATEWAY_TOKEN_KEY}").scopes(["files:read"]));
    /// assert_eq!(files.tool_prefix(), "files_");
    /// ```
    pub fn sign_in(mut self, sign_in: UpstreamSignIn) -> Self {
        let url = match &self.way {
            crate::upstream::Way::Http { url, .. } => url.clone(),
            _ => String::new(),
        };
        let client = SignInClient::new(&self.name, &url, sign_in);
        self.identity = crate::identity::Identity::SignIn(Arc::new(client));
        self
    }
}

/// The gateway as each user's OAuth client at one upstream.
pub(crate) struct SignInClient {
    /// The upstream's name.
    upstream: String,
    /// Its MCP endpoint: the resource.
    url: String,
    config: UpstreamSignIn,
    vault: Result<Vault, String>,
    http: reqwest::Client,
    /// Its authorization server, discovered once it works.
    metadata: OnceCell<Metadata>,
    /// The callback's public URL: configured, or the serving origin's.
    callback: OnceLock<String>,
    /// One refresh at a time per user (a refresh token is spent once).
    refreshing: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// A user's tokens at the upstream, as kept (sealed).
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct Tokens {
    access: String,
    #[serde(default)]
    refresh: Option<String>,
    /// Unix seconds.
    #[serde(default)]
    expires_at: Option<u64>,
}

/// Unix seconds now.
pub(crate) fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// An error of the sign-in as a tool error naming the upstream.
fn failed(upstream: &str, why: impl std::fmt::Display) -> ToolError {
    ToolError::new(format!("upstream '{upstream}': {why}"))
}

impl SignInClient {
    /// The client for upstream `upstream` at `url`; what is wrong in `config` is said by
    /// [`ready`](SignInClient::ready), at connect.
    pub(crate) fn new(upstream: &str, url: &str, config: UpstreamSignIn) -> SignInClient {
        let vault = Vault::from_config(&config.token_key);
        let http = crate::tls::builder(None)
            .unwrap_or_else(|_| reqwest::Client::builder())
            .timeout(discover::TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("toolsmith-gateway/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        let callback = OnceLock::new();
        if let Some(url) = &config.callback_url {
            let _ = callback.set(url.clone());
        }
        SignInClient {
            upstream: upstream.to_owned(),
            url: url.to_owned(),
            config,
            vault,
            http,
            metadata: OnceCell::new(),
            callback,
            refreshing: Mutex::new(HashMap::new()),
        }
    }

    /// Whether it can sign users in: its key reads, its callback URL is one.
    pub(crate) fn ready(&self) -> Result<(), crate::Error> {
        let secret = |why: String| crate::Error::Secret {
            upstream: self.upstream.clone(),
            why,
        };
        if self.url.is_empty() {
            return Err(secret(
                "`sign_in` is for a remote upstream (`url`) with its own authorization server"
                    .to_owned(),
            ));
        }
        self.vault.as_ref().map_err(|why| secret(why.clone()))?;
        if let Some(url) = &self.config.callback_url
            && (!url.ends_with("/upstream/callback") || discover::checked_endpoint(url).is_err())
        {
            return Err(secret(format!(
                "`callback_url` {url:?} is not the gateway's callback: give https://HOST[/PREFIX]/upstream/callback"
            )));
        }
        Ok(())
    }

    fn vault(&self) -> Result<&Vault, ToolError> {
        self.vault
            .as_ref()
            .map_err(|why| failed(&self.upstream, why))
    }

    /// The upstream's authorization server (discovered at first use, again after a failure).
    async fn metadata(&self) -> Result<&Metadata, ToolError> {
        self.metadata
            .get_or_try_init(|| discover::discover(&self.http, &self.url))
            .await
            .map_err(|why| failed(&self.upstream, format!("its sign-in was not found: {why}")))
    }

    /// The callback's public URL.
    fn callback(&self) -> Result<&str, ToolError> {
        self.callback.get().map(String::as_str).ok_or_else(|| {
            failed(
                &self.upstream,
                "its sign-in needs the gateway served over HTTP (its /upstream/callback page), or `callback_url`",
            )
        })
    }

    /// Where `caller`'s tokens at this upstream are kept.
    fn token_key(&self, caller: &Caller) -> String {
        format!(
            "gateway:upstream-token:{}:{}",
            self.upstream,
            digest(caller.identity())
        )
    }
}

/// Its upstream and URL: never its key, its secret or a token.
impl std::fmt::Debug for SignInClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignInClient")
            .field("upstream", &self.upstream)
            .field("url", &crate::told::shown_url(&self.url))
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod asking_tests;
#[cfg(test)]
mod fake;
#[cfg(test)]
mod redis_tests;
#[cfg(test)]
mod tests;
