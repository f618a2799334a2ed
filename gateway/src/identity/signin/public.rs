//! What a program names: the sign-in's configuration ([`UpstreamSignIn`]), given to
//! [`Upstream::sign_in`](crate::Upstream::sign_in) (in `gateway/src/signed_in.rs`, beside the
//! pages' routes).

use std::time::Duration;

/// How long the gateway waits, by default, for a user to finish signing in.
///
/// ```
/// assert_eq!(toolsmith_gateway::DEFAULT_SIGN_IN_WAIT.as_secs(), 300);
/// ```
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
///     .issuer("https://login.tickets.example")
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
    pub(crate) issuer: Option<String>,
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
            issuer: None,
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
    /// `${file:PATH}`; a secret needs [`issuer`](UpstreamSignIn::issuer)). Without it the
    /// gateway registers itself (RFC 7591) once per upstream.
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

    /// The issuer of the upstream's authorization server (its metadata's `issuer`): the one
    /// the upstream's 401 names must be it, else its sign-in is refused, and nothing is asked
    /// of the one it names. Required with a client secret ([`client`](UpstreamSignIn::client)),
    /// so that the secret goes to that server only.
    ///
    /// ```
    /// let sign_in = toolsmith_gateway::UpstreamSignIn::new("${KEY}")
    ///     .issuer("https://login.tickets.example");
    /// # let _ = sign_in;
    /// ```
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
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
    ///
    /// ```
    /// let sign_in = toolsmith_gateway::UpstreamSignIn::new("${KEY}");
    /// assert_eq!(sign_in.wait_limit(), toolsmith_gateway::DEFAULT_SIGN_IN_WAIT);
    /// ```
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
            .field("issuer", &self.issuer)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}
