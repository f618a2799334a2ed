//! [`Mint`]: the upstream trusts the gateway's own sign-in, and is sent a token the gateway
//! mints for each caller (feature `mint`).

use std::time::Duration;

use futures::future::BoxFuture;
use toolsmith::ToolError;
use toolsmith::context::Caller;

use super::{ActsAs, Asking, UpstreamToken};

/// How long a minted token lives, by default.
pub const DEFAULT_MINT_LIFETIME: Duration = Duration::from_secs(300);

/// Tokens the gateway mints itself for an upstream that trusts its sign-in (the gateway
/// serving with `--signin-*`; the upstream with `--auth-issuer` the gateway's origin and
/// `--auth-jwks` its `/oauth/jwks`): each caller's calls carry a token of the upstream's
/// `audience` naming the caller (`sub`, `idp`, `email`, `groups`), the gateway as the one
/// acting for them (`act`), never the caller's own token. No token endpoint is involved.
///
/// The gateway lists the upstream's tools before it signs anyone in: give the upstream a
/// token of the gateway's own to list with ([`header`](crate::Upstream::header)).
///
/// ```
/// use std::time::Duration;
/// use toolsmith_gateway::{Mint, Upstream};
///
/// let archive = Upstream::http("archive", "https://archive.internal/mcp")
///     .header("Authorization", "Bearer ${ARCHIVE_LISTING_TOKEN}")
///     .mint(Mint::new("https://archive.internal/mcp").scopes(["archive:read"]));
/// assert!(archive.per_caller_limits().is_none(), "its own bounds unless set");
/// assert_eq!(Mint::new("https://a/mcp").lifetime(Duration::ZERO).minted_lifetime(), Duration::from_secs(1));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mint {
    audience: String,
    scopes: Vec<String>,
    lifetime: Duration,
}

impl Mint {
    /// Tokens for `audience` (the upstream's resource: its URL, as it checks `aud`).
    pub fn new(audience: impl Into<String>) -> Self {
        Mint {
            audience: audience.into(),
            scopes: Vec::new(),
            lifetime: DEFAULT_MINT_LIFETIME,
        }
    }

    /// The scopes the tokens carry (none by default).
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// How long a token lives at most (default 5 minutes, at least 1 second; never past
    /// the caller's own token).
    pub fn lifetime(mut self, lifetime: Duration) -> Self {
        self.lifetime = lifetime.max(Duration::from_secs(1));
        self
    }

    /// How long a token lives at most.
    pub fn minted_lifetime(&self) -> Duration {
        self.lifetime
    }
}

impl ActsAs for Mint {
    fn identity(&self) -> &'static str {
        "mint"
    }

    fn token_for<'a>(
        &'a self,
        upstream: &'a str,
        caller: &'a Caller,
        asking: &'a Asking,
    ) -> BoxFuture<'a, Result<UpstreamToken, ToolError>> {
        Box::pin(async move {
            let issuing = asking.issuing.clone().unwrap_or_default();
            let scopes: Vec<&str> = self.scopes.iter().map(String::as_str).collect();
            let minted = issuing
                .mint(caller, &self.audience, &scopes, self.lifetime)
                .map_err(|why| ToolError::new(format!("upstream '{upstream}': {why}")))?;
            Ok(UpstreamToken {
                access: minted.token,
                expires_at: Some(minted.expires_at),
                subject: caller.subject().map(str::to_owned),
            })
        })
    }

    fn own_token<'a>(
        &'a self,
        _upstream: &'a str,
    ) -> BoxFuture<'a, Result<Option<UpstreamToken>, crate::Error>> {
        Box::pin(async { Ok(None) })
    }

    fn rejected<'a>(&'a self, _caller: &'a Caller, _asking: &'a Asking) -> BoxFuture<'a, ()> {
        // Nothing kept: each session's token is minted anew.
        Box::pin(async {})
    }
}
