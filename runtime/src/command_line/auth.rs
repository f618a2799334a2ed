//! `serve`'s authorization flags (feature `auth`): the issuer whose bearer tokens the HTTP
//! server accepts, the scopes the tools need, and, with `signin`, the server's own sign-in
//! (`signin.rs`).

use clap::Args;

use crate::Server;

/// Authorization: OAuth bearer tokens (JWTs) from one issuer.
#[derive(Args, Debug, Default)]
pub(super) struct AuthArgs {
    /// Require bearer tokens issued by this authorization server (its `iss`); needs
    /// --auth-jwks.
    #[arg(
        long,
        value_name = "URL",
        env = "TOOLSMITH_AUTH_ISSUER",
        requires = "auth_jwks"
    )]
    auth_issuer: Option<String>,
    /// The issuer's signing keys: a JWKS file, or an https URL (http for loopback only).
    #[arg(
        long,
        value_name = "PATH|URL",
        env = "TOOLSMITH_AUTH_JWKS",
        requires = "auth_issuer"
    )]
    auth_jwks: Option<String>,
    /// Also accept tokens for this audience, besides the public URL (repeatable;
    /// comma-separated in the variable).
    #[arg(
        long,
        value_name = "URL",
        env = "TOOLSMITH_AUTH_AUDIENCES",
        value_delimiter = ',',
        requires = "auth_issuer"
    )]
    auth_audience: Vec<String>,
    /// How often the signing keys are read again, in seconds (default 300; a shorter
    /// Cache-Control max-age of the JWKS URL wins). A key the issuer no longer lists is then
    /// refused; when a read fails, the keys read before are kept.
    #[arg(
        long,
        value_name = "SECONDS",
        env = "TOOLSMITH_AUTH_JWKS_REFRESH",
        value_parser = clap::value_parser!(u64).range(1..),
        requires = "auth_issuer"
    )]
    auth_jwks_refresh: Option<u64>,
    /// Accept only tokens whose header's typ is TYPE, e.g. at+jwt: the access tokens of RFC
    /// 9068 (at+jwt or application/at+jwt, any case), refusing ID tokens and other JWTs. Off
    /// by default: providers differ, and some issue access tokens with typ JWT.
    #[arg(
        long,
        value_name = "TYPE",
        env = "TOOLSMITH_AUTH_TOKEN_TYPE",
        requires = "auth_issuer"
    )]
    auth_token_type: Option<String>,
    /// The scope read-only tools need.
    #[arg(long, value_name = "SCOPE", env = "TOOLSMITH_SCOPE_READ")]
    scope_read: Option<String>,
    /// The scope tools that write (not destructive) need; it also grants the read scope.
    #[arg(long, value_name = "SCOPE", env = "TOOLSMITH_SCOPE_WRITE")]
    scope_write: Option<String>,
    /// The scope destructive tools need; it grants every hint scope.
    #[arg(long, value_name = "SCOPE", env = "TOOLSMITH_SCOPE_DESTRUCTIVE")]
    scope_destructive: Option<String>,
    #[cfg(feature = "signin")]
    #[command(flatten)]
    signin: super::signin::SignInArgs,
}

impl AuthArgs {
    /// The first authorization flag given, when any is (they apply only over HTTP).
    pub(super) fn given(&self) -> Option<&'static str> {
        if self.auth_issuer.is_some() {
            Some("--auth-issuer")
        } else if self.auth_jwks.is_some() {
            Some("--auth-jwks")
        } else if !self.auth_audience.is_empty() {
            Some("--auth-audience")
        } else if self.auth_jwks_refresh.is_some() {
            Some("--auth-jwks-refresh")
        } else if self.auth_token_type.is_some() {
            Some("--auth-token-type")
        } else {
            #[cfg(feature = "signin")]
            return self.signin.given();
            #[cfg(not(feature = "signin"))]
            None
        }
    }

    /// `server` with this authorization and these scope names.
    pub(super) fn apply(self, mut server: Server) -> Result<Server, crate::Error> {
        if self.scope_read.is_some()
            || self.scope_write.is_some()
            || self.scope_destructive.is_some()
        {
            let names = &server.scope_names;
            let names = crate::tool::ScopeNames::new(
                self.scope_read.unwrap_or_else(|| names.read().to_owned()),
                self.scope_write.unwrap_or_else(|| names.write().to_owned()),
                self.scope_destructive
                    .unwrap_or_else(|| names.destructive().to_owned()),
            );
            server = server.scope_names(names);
        }
        if let (Some(issuer), Some(jwks)) = (self.auth_issuer, self.auth_jwks) {
            let mut auth = self.auth_audience.into_iter().fold(
                crate::auth::Auth::new(issuer, jwks),
                crate::auth::Auth::audience,
            );
            if let Some(seconds) = self.auth_jwks_refresh {
                auth = auth.jwks_refresh(std::time::Duration::from_secs(seconds));
            }
            if let Some(token_type) = self.auth_token_type {
                auth = auth.token_type(token_type);
            }
            server = server.auth(auth);
        }
        #[cfg(feature = "signin")]
        let server = self.signin.apply(server)?;
        Ok(server)
    }
}
