//! Sign-in (feature `signin`): an OAuth 2.1 authorization server for the server's own
//! resource, in front of one identity provider, so that any MCP client can sign its user in.
//!
//! Clients find it through the Protected Resource Metadata, register (Dynamic Client
//! Registration, or a Client ID Metadata Document), send the user to `/oauth/authorize`
//! (code flow, PKCE S256); the user signs in at the provider (any OpenID Connect provider,
//! or a plain OAuth 2.0 one such as GitHub), then grants scopes on a consent page that says,
//! in the tools' own terms, what the client may do: read, change, delete. The client gets an
//! access token of this server (a short-lived JWT for the server's public URL, carrying the
//! scopes granted) and a refresh token; the provider's own tokens never leave the server.
//! The guide's [authorization page](crate::guide::auth) has the whole setup.

// Inside: `mod.rs` is what the operator configures; `server.rs` the running authorization
// server; `records.rs` what is kept in the task store; `keys.rs` the signing keys;
// `tokens.rs` the tokens; `clients.rs` the clients (registered, or metadata documents);
// `upstream.rs` the identity provider; `flow.rs` an authorization from request to code;
// `page.rs` the pages a browser sees; `routes.rs` the HTTP endpoints; `rule.rs` the
// operator's rules. Nothing here knows the MCP server: the transport mounts the routes, and
// the server says which tools each scope opens.

mod checks;
mod clients;
mod consent;
mod consents;
mod documents;
mod flow;
mod issuing;
mod keys;
mod page;
mod records;
mod routes;
mod rule;
mod server;
mod tokens;
mod upstream;

use std::time::Duration;

pub use consents::{Consent, Consents};
pub use issuing::{Issuing, Minted};
pub use rule::ScopeRule;
pub(crate) use server::{AuthServer, Level, Offer, Offers};

/// The identity provider users sign in with: any OpenID Connect provider (discovered from
/// its issuer), or a plain OAuth 2.0 provider (GitHub style: its authorize, token and
/// user-info URLs). The operator registers one client there, whose redirect URI is
/// `ORIGIN/oauth/callback` (the server's public URL's origin).
///
/// ```
/// use toolsmith::signin::Provider;
///
/// let google = Provider::oidc("https://accounts.google.com", "client-id", "secret");
/// assert_eq!(google.issuer(), "https://accounts.google.com");
/// let github = Provider::oauth(
///     "https://github.com/login/oauth/authorize",
///     "https://github.com/login/oauth/access_token",
///     "https://api.github.com/user",
///     "client-id",
///     "secret",
/// )
/// .subject_field("id")
/// .scopes(["read:user", "user:email"]);
/// assert_eq!(github.issuer(), "https://github.com");
/// ```
#[derive(Clone)]
#[cfg_attr(docsrs, doc(cfg(feature = "signin")))]
pub struct Provider {
    pub(crate) kind: ProviderKind,
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
    pub(crate) scopes: Vec<String>,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret.
        f.debug_struct("Provider")
            .field("issuer", &self.issuer())
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone)]
pub(crate) enum ProviderKind {
    /// OpenID Connect: everything from `ISSUER/.well-known/openid-configuration`.
    Oidc { issuer: String },
    /// Plain OAuth 2.0: the subject is a field of the user-info answer.
    OAuth {
        authorize: String,
        token: String,
        userinfo: String,
        subject_field: String,
        issuer: String,
    },
}

impl Provider {
    /// An OpenID Connect provider, discovered at `ISSUER/.well-known/openid-configuration`
    /// (`https`; `http` for a loopback host only), with the operator's client there. Asks
    /// for `openid email profile` unless [`scopes`](Self::scopes) says otherwise.
    ///
    /// ```
    /// let entra = toolsmith::signin::Provider::oidc(
    ///     "https://login.microsoftonline.com/TENANT/v2.0",
    ///     "client-id",
    ///     "secret",
    /// );
    /// assert!(format!("{entra:?}").contains("client-id") && !format!("{entra:?}").contains("secret"));
    /// ```
    pub fn oidc(
        issuer: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Provider {
        let issuer: String = issuer.into();
        Provider {
            kind: ProviderKind::Oidc {
                issuer: issuer.trim_end_matches('/').to_owned(),
            },
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scopes: ["openid", "email", "profile"].map(String::from).to_vec(),
        }
    }

    /// A plain OAuth 2.0 provider (no OpenID Connect): the user is who `userinfo` says
    /// (its `sub` field, or the one [`subject_field`](Self::subject_field) names), known by
    /// the origin of `authorize` as its issuer.
    ///
    /// ```
    /// let p = toolsmith::signin::Provider::oauth(
    ///     "https://git.example.com/oauth/authorize",
    ///     "https://git.example.com/oauth/token",
    ///     "https://git.example.com/api/user",
    ///     "id",
    ///     "secret",
    /// );
    /// assert_eq!(p.issuer(), "https://git.example.com");
    /// ```
    pub fn oauth(
        authorize: impl Into<String>,
        token: impl Into<String>,
        userinfo: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Provider {
        let authorize: String = authorize.into();
        let issuer = origin(&authorize).unwrap_or_else(|| authorize.clone());
        Provider {
            kind: ProviderKind::OAuth {
                authorize,
                token: token.into(),
                userinfo: userinfo.into(),
                subject_field: "sub".to_owned(),
                issuer,
            },
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scopes: Vec::new(),
        }
    }

    /// The user-info field that names the user (plain OAuth only; default `sub`; GitHub:
    /// `id`). A number is read as its decimal text.
    ///
    /// ```
    /// let p = toolsmith::signin::Provider::oauth("https://a.example/authorize", "https://a.example/token", "https://a.example/user", "id", "s")
    ///     .subject_field("id");
    /// assert!(format!("{p:?}").contains("a.example"));
    /// ```
    pub fn subject_field(mut self, field: impl Into<String>) -> Provider {
        if let ProviderKind::OAuth { subject_field, .. } = &mut self.kind {
            *subject_field = field.into();
        }
        self
    }

    /// The scopes asked of the provider (OpenID Connect: `openid email profile` by
    /// default, and `openid` is always asked; plain OAuth: none by default).
    ///
    /// ```
    /// let p = toolsmith::signin::Provider::oidc("https://id.example", "c", "s").scopes(["openid", "email", "groups"]);
    /// assert!(format!("{p:?}").contains("groups"));
    /// ```
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Provider {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        if matches!(self.kind, ProviderKind::Oidc { .. })
            && !self.scopes.iter().any(|s| s == "openid")
        {
            self.scopes.insert(0, "openid".to_owned());
        }
        self
    }

    /// The provider's issuer: what the server's tokens name as `idp`, beside the user's
    /// subject there.
    ///
    /// ```
    /// assert_eq!(toolsmith::signin::Provider::oidc("https://id.example/", "c", "s").issuer(), "https://id.example");
    /// ```
    pub fn issuer(&self) -> &str {
        match &self.kind {
            ProviderKind::Oidc { issuer } | ProviderKind::OAuth { issuer, .. } => issuer,
        }
    }
}

/// The scheme, host and port of `url`.
pub(crate) fn origin(url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(url).ok()?;
    let origin = parsed.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// Sign-in for an HTTP server: the identity provider, the operator's rules, and how long
/// what it issues lives. Turn it on with [`Server::sign_in`](crate::Server::sign_in) (or
/// `serve --http ADDR --signin-oidc ISSUER --signin-client-id ID`).
///
/// ```no_run
/// // no_run: serves HTTP on port 8000 until SIGTERM or SIGINT.
/// use toolsmith::signin::{Provider, ScopeRule, SignIn};
///
/// # async fn f() -> Result<(), toolsmith::Error> {
/// let google = Provider::oidc("https://accounts.google.com", "client-id", "secret");
/// let sign_in = SignIn::new(google)
///     .restrict(ScopeRule::parse("tools:destructive=email:*@example.com").unwrap());
/// toolsmith::Server::new()
///     .public_url("https://mcp.example.com/mcp")
///     .sign_in(sign_in)
///     .serve_http("0.0.0.0:8000")
///     .await
/// # }
/// ```
#[derive(Debug, Clone)]
#[cfg_attr(docsrs, doc(cfg(feature = "signin")))]
pub struct SignIn {
    pub(crate) provider: Provider,
    pub(crate) rules: Vec<ScopeRule>,
    pub(crate) allow_hosts: Vec<String>,
    pub(crate) token_lifetime: Duration,
    pub(crate) refresh_lifetime: Duration,
    pub(crate) consent_lifetime: Duration,
    pub(crate) max_clients: u64,
    pub(crate) registrations_per_minute: u64,
}

impl SignIn {
    /// Sign-in through `provider`, with the defaults: access tokens live 10 minutes,
    /// refresh tokens 30 days, remembered consents 90 days; at most 10,000 registered
    /// clients, 60 registrations a minute.
    ///
    /// ```
    /// use toolsmith::signin::{Provider, SignIn};
    /// let s = SignIn::new(Provider::oidc("https://id.example", "c", "s"));
    /// assert_eq!(s.token_lifetime(), std::time::Duration::from_secs(600));
    /// ```
    pub fn new(provider: Provider) -> SignIn {
        SignIn {
            provider,
            rules: Vec::new(),
            allow_hosts: Vec::new(),
            token_lifetime: Duration::from_secs(600),
            refresh_lifetime: Duration::from_secs(30 * 24 * 3600),
            consent_lifetime: Duration::from_secs(90 * 24 * 3600),
            max_clients: 10_000,
            registrations_per_minute: 60,
        }
    }

    /// Only callers that `rule` admits may be granted its scope (repeatable; a scope no rule
    /// names is open to every signed-in user). The consent page does not offer it to others.
    ///
    /// ```
    /// use toolsmith::signin::{Provider, ScopeRule, SignIn};
    /// let s = SignIn::new(Provider::oidc("https://id.example", "c", "s"))
    ///     .restrict(ScopeRule::parse("tools:destructive=group:admins").unwrap());
    /// assert!(format!("{s:?}").contains("admins"));
    /// ```
    pub fn restrict(mut self, rule: ScopeRule) -> SignIn {
        self.rules.push(rule);
        self
    }

    /// Lets the Client ID Metadata Documents of `host` be fetched although it is on this
    /// machine or a private network, and over plain `http` (for tests; repeatable).
    ///
    /// ```
    /// let s = toolsmith::signin::SignIn::new(toolsmith::signin::Provider::oidc("https://id.example", "c", "s"))
    ///     .allow_host("127.0.0.1");
    /// assert!(format!("{s:?}").contains("127.0.0.1"));
    /// ```
    pub fn allow_host(mut self, host: impl Into<String>) -> SignIn {
        self.allow_hosts.push(host.into());
        self
    }

    /// How long an access token lives (default 10 minutes, at least 10 seconds).
    ///
    /// ```
    /// use std::time::Duration;
    /// let s = toolsmith::signin::SignIn::new(toolsmith::signin::Provider::oidc("https://id.example", "c", "s"))
    ///     .access_lifetime(Duration::from_secs(1));
    /// assert_eq!(s.token_lifetime(), Duration::from_secs(10));
    /// ```
    pub fn access_lifetime(mut self, lifetime: Duration) -> SignIn {
        self.token_lifetime = lifetime.max(Duration::from_secs(10));
        self
    }

    /// How long an access token lives.
    ///
    /// ```
    /// let s = toolsmith::signin::SignIn::new(toolsmith::signin::Provider::oidc("https://id.example", "c", "s"));
    /// assert_eq!(s.token_lifetime().as_secs(), 600);
    /// ```
    pub fn token_lifetime(&self) -> Duration {
        self.token_lifetime
    }

    /// How long a refresh token (its family, from the first sign-in) lives (default 30
    /// days, at least a minute).
    ///
    /// ```
    /// use std::time::Duration;
    /// let s = toolsmith::signin::SignIn::new(toolsmith::signin::Provider::oidc("https://id.example", "c", "s"))
    ///     .refresh_lifetime(Duration::from_secs(3600));
    /// assert!(format!("{s:?}").contains("3600"));
    /// ```
    pub fn refresh_lifetime(mut self, lifetime: Duration) -> SignIn {
        self.refresh_lifetime = lifetime.max(Duration::from_secs(60));
        self
    }

    /// The most clients registered at once (default 10,000); past it, registration answers
    /// an error.
    ///
    /// ```
    /// let s = toolsmith::signin::SignIn::new(toolsmith::signin::Provider::oidc("https://id.example", "c", "s"))
    ///     .max_clients(5);
    /// assert!(format!("{s:?}").contains("max_clients: 5"));
    /// ```
    pub fn max_clients(mut self, max: u64) -> SignIn {
        self.max_clients = max.max(1);
        self
    }

    /// The most registrations a minute (default 60); past it, `/oauth/register` answers
    /// 429.
    ///
    /// ```
    /// let s = toolsmith::signin::SignIn::new(toolsmith::signin::Provider::oidc("https://id.example", "c", "s"))
    ///     .registrations_per_minute(2);
    /// assert!(format!("{s:?}").contains("registrations_per_minute: 2"));
    /// ```
    pub fn registrations_per_minute(mut self, max: u64) -> SignIn {
        self.registrations_per_minute = max.max(1);
        self
    }
}
