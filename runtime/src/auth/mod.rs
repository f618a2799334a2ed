//! Authorization (feature `auth`): an OAuth 2.1 resource server, as the MCP 2025-11-25
//! specification asks of a server behind HTTP. [`Auth`] says which authorization server
//! (issuer) to trust and where its keys are; bearer tokens are checked against it (JWTs:
//! signature against the issuer's JWKS, `iss`, `aud`, `exp`, `nbf`, and `typ` when asked) and a
//! valid one becomes the call's [`Caller`](crate::context::Caller). The scopes each tool needs
//! come from its hints ([`ScopeNames`](crate::tool::ScopeNames)). The guide's
//! [authorization page](crate::guide::auth) has the whole setup.

// Inside: a `Verifier` made from `Auth` checks tokens; the JWKS is read again in the
// background while it lives, so that a key the issuer drops stops being trusted. Nothing here
// knows HTTP requests or the server: the HTTP transport asks the verifier.

mod jwks;
mod refresh;
mod verify;

use std::time::Duration;

#[cfg(feature = "signin")]
pub(crate) use jwks::loopback;
#[cfg(feature = "signin")]
pub(crate) use verify::Rejected;
pub(crate) use verify::Verifier;

/// How long a token's `exp` and `nbf` may be off: clocks drift.
const LEEWAY: Duration = Duration::from_secs(30);
/// The least time between two fetches of the key set on an unknown key id.
const REFETCH: Duration = Duration::from_secs(60);
/// How often the key set is read again in the background, by default.
const REFRESH: Duration = Duration::from_secs(300);

/// The authorization server a resource server trusts: its issuer URL, where its signing keys
/// are published (a JWKS file, or an `https` URL; plain `http` for loopback only), and the
/// audiences a token may name besides the server's public URL.
///
/// Turn it on with [`Server::auth`](crate::Server::auth) (or `serve --http ADDR
/// --auth-issuer URL --auth-jwks PATH|URL`). Every request to the MCP endpoint then needs a
/// valid bearer token, and a tool call needs the scopes its hints imply (see
/// [`ScopeNames`](crate::tool::ScopeNames)).
///
/// ```no_run
/// // no_run: serves HTTP on port 8000 until SIGTERM or SIGINT: tokens are checked there.
/// use toolsmith::{auth::Auth, Server};
///
/// # async fn f() -> Result<(), toolsmith::Error> {
/// let auth = Auth::new(
///     "https://login.example.com/realms/notes",
///     "https://login.example.com/realms/notes/protocol/openid-connect/certs",
/// );
/// Server::new()
///     .public_url("https://mcp.example.com/mcp")
///     .auth(auth)
///     .serve_http("0.0.0.0:8000")
///     .await
/// # }
/// ```
#[derive(Debug, Clone)]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub struct Auth {
    pub(crate) issuer: String,
    pub(crate) jwks: String,
    pub(crate) audiences: Vec<String>,
    pub(crate) refetch: Duration,
    pub(crate) refresh: Duration,
    pub(crate) token_type: Option<String>,
    /// This process's own keys, instead of a JWKS location (the sign-in's tokens).
    #[cfg(feature = "signin")]
    pub(crate) local: Option<LocalKeys>,
}

/// The keys of this process's own authorization server, as it publishes them.
#[cfg(feature = "signin")]
#[derive(Clone)]
pub(crate) struct LocalKeys(
    pub(crate) std::sync::Arc<dyn Fn() -> Vec<jsonwebtoken::jwk::Jwk> + Send + Sync>,
);

#[cfg(feature = "signin")]
impl std::fmt::Debug for LocalKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LocalKeys")
    }
}

impl Auth {
    /// Trusts tokens issued by `issuer` (compared exactly with `iss`) and signed with a key
    /// of the JWKS at `jwks`: a file path, or an `https://` URL (`http://` for a loopback
    /// host only).
    ///
    /// ```no_run
    /// // no_run: serves HTTP on port 8000 until SIGTERM or SIGINT: tokens are checked there.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// let auth = toolsmith::auth::Auth::new("https://issuer.example.com", "/etc/toolsmith/jwks.json");
    /// toolsmith::Server::new()
    ///     .public_url("https://mcp.example.com/mcp")
    ///     .auth(auth)
    ///     .serve_http("0.0.0.0:8000")
    ///     .await
    /// # }
    /// ```
    pub fn new(issuer: impl Into<String>, jwks: impl Into<String>) -> Self {
        Auth {
            issuer: issuer.into(),
            jwks: jwks.into(),
            audiences: Vec::new(),
            refetch: REFETCH,
            refresh: REFRESH,
            token_type: None,
            #[cfg(feature = "signin")]
            local: None,
        }
    }

    /// Trusts the access tokens of this process's own authorization server (sign-in):
    /// issued by `issuer`, signed with one of `keys`, typed `at+jwt`.
    #[cfg(feature = "signin")]
    pub(crate) fn issued_by(issuer: &str, keys: LocalKeys) -> Self {
        let mut auth = Auth::new(issuer, "(the sign-in's own keys)").token_type("at+jwt");
        auth.refresh = std::time::Duration::from_secs(60);
        auth.local = Some(keys);
        auth
    }

    /// Also accepts tokens whose `aud` names `audience` (the server's public URL is always
    /// accepted, as RFC 8707 resource indicators give it).
    ///
    /// ```no_run
    /// // no_run: serves HTTP on port 8000 until SIGTERM or SIGINT: tokens are checked there.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// // Tokens for `notes-api`, or for https://mcp.example.com/mcp, are accepted.
    /// let auth = toolsmith::auth::Auth::new("https://issuer.example.com", "jwks.json")
    ///     .audience("notes-api");
    /// toolsmith::Server::new()
    ///     .public_url("https://mcp.example.com/mcp")
    ///     .auth(auth)
    ///     .serve_http("0.0.0.0:8000")
    ///     .await
    /// # }
    /// ```
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// How often the key set is read again, in the background (default five minutes; at
    /// least one second). When the JWKS URL answers with a shorter `Cache-Control: max-age`,
    /// that is used instead. A key the issuer no longer lists is then no longer trusted:
    /// tokens it signed are refused, even those verified before. When a read fails, the keys
    /// read before are kept and a warning is logged. The same as `serve --auth-jwks-refresh
    /// SECONDS`.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on port 8000 until SIGTERM or SIGINT: tokens are checked there.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// use std::time::Duration;
    ///
    /// let auth = toolsmith::auth::Auth::new(
    ///     "https://issuer.example.com",
    ///     "https://issuer.example.com/.well-known/jwks.json",
    /// )
    /// .jwks_refresh(Duration::from_secs(60));
    /// toolsmith::Server::new()
    ///     .public_url("https://mcp.example.com/mcp")
    ///     .auth(auth)
    ///     .serve_http("0.0.0.0:8000")
    ///     .await
    /// # }
    /// ```
    pub fn jwks_refresh(mut self, every: Duration) -> Self {
        self.refresh = every;
        self
    }

    /// Accepts only tokens whose header's `typ` is `token_type`, with or without its
    /// `application/` prefix, in any case: `Auth::token_type("at+jwt")` accepts the access
    /// tokens of RFC 9068 (`at+jwt`, `application/at+jwt`) and refuses ID tokens and other
    /// JWTs. Off by default, as providers differ: some issue access tokens with `typ: JWT`,
    /// or none. The same as `serve --auth-token-type TYPE`.
    ///
    /// ```no_run
    /// // no_run: serves HTTP on port 8000 until SIGTERM or SIGINT: tokens are checked there.
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// // An ID token of the same issuer is refused.
    /// let auth = toolsmith::auth::Auth::new("https://issuer.example.com", "jwks.json")
    ///     .token_type("at+jwt");
    /// toolsmith::Server::new()
    ///     .public_url("https://mcp.example.com/mcp")
    ///     .auth(auth)
    ///     .serve_http("0.0.0.0:8000")
    ///     .await
    /// # }
    /// ```
    pub fn token_type(mut self, token_type: impl Into<String>) -> Self {
        self.token_type = Some(token_type.into());
        self
    }

    /// The least time between two fetches of the key set when a token names an unknown key
    /// (default one minute). For toolsmith's tests (`__private::refetch_interval`, feature
    /// `__test-switches`), not public API.
    #[cfg(feature = "__test-switches")]
    pub(crate) fn refetch_interval(mut self, interval: Duration) -> Self {
        self.refetch = interval;
        self
    }
}
