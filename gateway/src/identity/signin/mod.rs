//! Per-user sign-in at an upstream that has its own authorization server: the gateway is
//! each user's OAuth client there. A call by a user with no token of the upstream's asks them
//! (URL-mode elicitation) to open the gateway's start page, which sends their browser to the
//! upstream's sign-in; the gateway's callback keeps the tokens it got (sealed, keyed by user
//! and upstream) and the call goes on.
//!
//! - `acts.rs`: the sign-in as the session pool asks it (`ActsAs`);
//! - `discover.rs`: the upstream's 401 challenge, its protected resource metadata (RFC 9728)
//!   and its authorization server's metadata (RFC 8414, OpenID Connect discovery);
//! - `register.rs`: the gateway's client there (configured, or registered once per upstream,
//!   RFC 7591) and the token endpoint (code, refresh, revocation);
//! - `flow.rs`: a caller's token: the one kept, else the sign-in (state, PKCE, the link, the
//!   elicitation and the bounded wait);
//! - `refresh.rs`: the tokens kept (sealed), refreshed when they expire under a claim shared
//!   by the replicas and a sign-out, marked expired when the upstream refuses them;
//! - `start.rs`: the start pages (who the account is linked to, confirmed by a form);
//! - `callback.rs`: the callback page;
//! - `public.rs`: the configuration ([`UpstreamSignIn`]; `Upstream::sign_in` and the pages'
//!   routes are in `gateway/src/signed_in.rs`);
//! - `vault.rs`: AES-256-GCM at rest;
//! - `signout.rs`: signing out (revoked, forgotten); `tool.rs`: the `{prefix}sign_out` tool.

mod acts;
mod callback;
mod discover;
mod flow;
mod public;
mod refresh;
mod register;
mod routes;
mod signout;
mod start;
mod tool;
mod vault;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use tokio::sync::OnceCell;
use toolsmith::ToolError;
use toolsmith::context::Caller;

use crate::identity::UpstreamToken;

pub use public::{DEFAULT_SIGN_IN_WAIT, UpstreamSignIn};
pub(crate) use routes::routes_for;
pub(crate) use tool::SignOut;

use crate::identity::digest;
use discover::Metadata;
use vault::Vault;

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
    #[cfg(test)]
    pub(crate) fn new(upstream: &str, url: &str, config: UpstreamSignIn) -> SignInClient {
        SignInClient::trusting(upstream, url, config, None)
    }

    /// The client of `upstream` at `url`, its HTTPS trusting the certificate authorities in
    /// `ca_file` beside the system's (the upstream's own; one that cannot be read is said by
    /// [`ready`](SignInClient::ready)).
    pub(crate) fn trusting(
        upstream: &str,
        url: &str,
        config: UpstreamSignIn,
        ca_file: Option<&std::path::Path>,
    ) -> SignInClient {
        let mut vault = Vault::from_config(&config.token_key);
        let builder = crate::tls::builder(ca_file).unwrap_or_else(|why| {
            vault = Err(why);
            reqwest::Client::builder()
        });
        let http = builder
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

    /// Whether it can sign users in: its key reads, its callback URL is one, its `issuer` (a
    /// URL) is given with a client secret.
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
        match &self.config.issuer {
            Some(issuer) => discover::checked_endpoint(issuer).map_err(|why| {
                secret(format!(
                    "`issuer` {why}: give its authorization server's issuer URL"
                ))
            })?,
            // The secret goes to whatever authorization server the upstream names: it must
            // be the one the client was registered at.
            None if self.config.client_secret.is_some() => {
                return Err(secret(
                    "`client_secret` needs `issuer`: add the issuer URL of the authorization server the client is registered at, so that its secret goes there only"
                        .to_owned(),
                ));
            }
            None => {}
        }
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

    /// `value` sealed for `key`, as the store keeps a sign-in's record: the upstream whose
    /// vault opens it (`Pages::open`), and the sealed value.
    fn record(&self, key: &str, value: &impl Serialize) -> Result<String, ToolError> {
        let sealed = self
            .vault()?
            .seal_json(key, value)
            .map_err(|why| failed(&self.upstream, why))?;
        Ok(serde_json::json!({"upstream": self.upstream, "sealed": sealed}).to_string())
    }

    /// The upstream's authorization server (discovered at first use, again after a failure).
    async fn metadata(&self) -> Result<&Metadata, ToolError> {
        self.discovered()
            .await
            .map_err(|why| failed(&self.upstream, format!("its sign-in was not found: {why}")))
    }

    /// The upstream's authorization server, or why it was not found (or is not the
    /// configured `issuer`).
    async fn discovered(&self) -> Result<&Metadata, String> {
        let expected = self.config.issuer.as_deref();
        self.metadata
            .get_or_try_init(|| discover::discover(&self.http, &self.url, expected))
            .await
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

/// What the session pool sends: the access token, when it expires, and its subject when it
/// is a JWT that names one (read, not verified: for the audit log only).
impl Tokens {
    /// The access token.
    pub(crate) fn access_token(&self) -> &str {
        &self.access
    }
}

pub(crate) fn upstream_token(tokens: &Tokens) -> UpstreamToken {
    UpstreamToken {
        access: tokens.access.clone(),
        expires_at: tokens
            .expires_at
            .and_then(|at| std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_secs(at))),
        subject: subject_of(&tokens.access),
    }
}

/// The `sub` of a JWT's payload, if it is one.
fn subject_of(token: &str) -> Option<String> {
    use base64::Engine;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    claims["sub"].as_str().map(str::to_owned)
}

#[cfg(test)]
mod asking_tests;
#[cfg(test)]
mod config_tests;
#[cfg(test)]
mod fake;
#[cfg(test)]
mod redis_tests;
#[cfg(test)]
mod refresh_tests;
#[cfg(test)]
mod start_tests;
#[cfg(test)]
mod tests;
