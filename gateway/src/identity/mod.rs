//! Whom an upstream sees: by default the gateway's own credentials (its `headers`, its
//! `env`); or each caller as themselves, in a session of their own (`pool.rs`): with a token
//! the gateway gets for them ([`ActsAs`]: a token exchange, RFC 8693; or the user's own
//! sign-in at the upstream) and, for a started server, a child of their own
//! ([`PerCaller`]).

mod client_auth;
pub(crate) mod entries;
mod exchange;
pub(crate) mod exchange_config;
#[cfg(feature = "mint")]
mod mint;
mod per_caller;
#[cfg(feature = "upstream-signin")]
pub(crate) mod signin;
mod token_answer;
mod token_cache;
mod watched;

use futures::future::BoxFuture;
use toolsmith::ToolError;
use toolsmith::context::{Caller, Elicit, Store};

pub(crate) use exchange::Exchanger;
pub use exchange_config::Exchange;
#[cfg(feature = "mint")]
pub use mint::{DEFAULT_MINT_LIFETIME, Mint};
pub use per_caller::PerCaller;
pub(crate) use watched::{Refusal, Watched};

/// A token the upstream accepts, for one caller (or for the gateway itself, to list).
#[derive(Clone)]
pub(crate) struct UpstreamToken {
    /// Sent as `Authorization: Bearer {access}`.
    pub(crate) access: String,
    pub(crate) expires_at: Option<std::time::SystemTime>,
    /// Who the upstream sees (the token's `sub`, when it says): for the log.
    pub(crate) subject: Option<String>,
}

/// Never the token itself.
impl std::fmt::Debug for UpstreamToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamToken")
            .field("expires_at", &self.expires_at)
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

impl UpstreamToken {
    /// Whether it expires within `margin` (a token that does not say never does).
    pub(crate) fn expires_within(&self, margin: std::time::Duration) -> bool {
        self.expires_at.is_some_and(|at| {
            at.duration_since(std::time::SystemTime::now())
                .map_or(true, |left| left <= margin)
        })
    }
}

/// What a call can use to get its caller's token: the client, to ask the user (a sign-in
/// link), and the server's store (where a user's tokens are kept, for every replica).
#[derive(Clone, Default)]
#[allow(dead_code)] // Read by the modes that ask (a sign-in).
pub(crate) struct Asking {
    pub(crate) elicit: Option<Elicit>,
    pub(crate) store: Option<Store>,
    /// The gateway's own sign-in, to mint tokens with.
    #[cfg(feature = "mint")]
    pub(crate) issuing: Option<toolsmith::signin::Issuing>,
}

/// SHA-256 of `text`, hex: what store keys and paths name instead of a secret or an
/// identity.
pub(crate) fn digest(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// How the gateway gets a token of the upstream's for a caller.
pub(crate) trait ActsAs: Send + Sync {
    /// How the upstream knows the caller, as the metrics name it: `exchange`, `mint`,
    /// `sign_in`.
    fn identity(&self) -> &'static str;

    /// The token `caller`'s session sends to `upstream`.
    fn token_for<'a>(
        &'a self,
        upstream: &'a str,
        caller: &'a Caller,
        asking: &'a Asking,
    ) -> BoxFuture<'a, Result<UpstreamToken, ToolError>>;

    /// The gateway's own token, to list the upstream's tools at connect (`None`: it lists
    /// with its configured headers).
    fn own_token<'a>(
        &'a self,
        upstream: &'a str,
    ) -> BoxFuture<'a, Result<Option<UpstreamToken>, crate::Error>>;

    /// The upstream refused `caller`'s token: it is forgotten (the next
    /// [`token_for`](ActsAs::token_for) gets a fresh one).
    fn rejected<'a>(&'a self, caller: &'a Caller, asking: &'a Asking) -> BoxFuture<'a, ()>;

    /// Whether `token`, the one `caller`'s open session sends, is still theirs to send: a
    /// mode whose tokens another replica may take away (a sign-out) says no once they are
    /// gone, and the session is closed. By default a token is, until it expires.
    fn still_current<'a>(
        &'a self,
        _caller: &'a Caller,
        _asking: &'a Asking,
        _token: &'a UpstreamToken,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async { true })
    }
}
