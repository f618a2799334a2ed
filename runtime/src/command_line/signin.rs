//! `serve --signin-*`: the server signs users in itself, in front of one identity provider
//! (feature `signin`).

use std::time::Duration;

use clap::Args;

use crate::Server;
use crate::signin::{Provider, ScopeRule, SignIn};

/// Sign-in: an authorization server in front of one identity provider.
#[derive(Args, Debug, Default)]
pub(super) struct SignInArgs {
    /// Sign users in with this OpenID Connect provider (its issuer; discovery at
    /// ISSUER/.well-known/openid-configuration). Needs --signin-client-id.
    #[arg(long, value_name = "ISSUER", env = "TOOLSMITH_SIGNIN_OIDC", conflicts_with_all = ["signin_authorize_url", "auth_issuer"])]
    signin_oidc: Option<String>,
    /// Sign users in with a plain OAuth 2.0 provider (GitHub style): its authorization URL;
    /// needs --signin-token-url and --signin-userinfo-url.
    #[arg(long, value_name = "URL", env = "TOOLSMITH_SIGNIN_AUTHORIZE_URL", requires_all = ["signin_token_url", "signin_userinfo_url"], conflicts_with = "auth_issuer")]
    signin_authorize_url: Option<String>,
    /// The plain OAuth 2.0 provider's token URL.
    #[arg(
        long,
        value_name = "URL",
        env = "TOOLSMITH_SIGNIN_TOKEN_URL",
        requires = "signin_authorize_url"
    )]
    signin_token_url: Option<String>,
    /// The plain OAuth 2.0 provider's user-info URL (who signed in).
    #[arg(
        long,
        value_name = "URL",
        env = "TOOLSMITH_SIGNIN_USERINFO_URL",
        requires = "signin_authorize_url"
    )]
    signin_userinfo_url: Option<String>,
    /// The user-info field that names the user (plain OAuth 2.0; default sub; GitHub: id).
    #[arg(
        long,
        value_name = "FIELD",
        env = "TOOLSMITH_SIGNIN_SUBJECT_FIELD",
        requires = "signin_authorize_url"
    )]
    signin_subject_field: Option<String>,
    /// The server's client id at the provider (its redirect URI there: ORIGIN/oauth/callback).
    #[arg(long, value_name = "ID", env = "TOOLSMITH_SIGNIN_CLIENT_ID")]
    signin_client_id: Option<String>,
    /// A file holding the client's secret (or TOOLSMITH_SIGNIN_CLIENT_SECRET).
    #[arg(long, value_name = "PATH", env = "TOOLSMITH_SIGNIN_CLIENT_SECRET_FILE")]
    signin_client_secret_file: Option<String>,
    /// The scopes asked of the provider, space-separated (OpenID Connect default: openid
    /// email profile).
    #[arg(long, value_name = "SCOPES", env = "TOOLSMITH_SIGNIN_SCOPES")]
    signin_scopes: Option<String>,
    /// Only users matching WHO may be granted SCOPE: SCOPE=WHO[,WHO...], WHO one of
    /// email:PATTERN (a verified email, e.g. email:*@example.com), group:NAME,
    /// subject:PATTERN (repeatable).
    #[arg(long, value_name = "SCOPE=WHO,...", value_parser = parse_rule)]
    signin_restrict: Vec<ScopeRule>,
    /// Fetch the Client ID Metadata Documents of HOST although it is on this machine or a
    /// private network, and over plain http (for tests; repeatable).
    #[arg(long, value_name = "HOST")]
    signin_allow_host: Vec<String>,
    /// How long an access token lives, in seconds (default 600).
    #[arg(long, value_name = "SECONDS", env = "TOOLSMITH_SIGNIN_TOKEN_LIFETIME", value_parser = clap::value_parser!(u64).range(10..))]
    signin_token_lifetime: Option<u64>,
    /// How long a sign-in's refresh tokens live, in seconds (default 2592000, 30 days).
    #[arg(long, value_name = "SECONDS", env = "TOOLSMITH_SIGNIN_REFRESH_LIFETIME", value_parser = clap::value_parser!(u64).range(60..))]
    signin_refresh_lifetime: Option<u64>,
}

fn parse_rule(spec: &str) -> Result<ScopeRule, String> {
    ScopeRule::parse(spec)
}

impl SignInArgs {
    /// The first sign-in flag given, when any is.
    pub(super) fn given(&self) -> Option<&'static str> {
        if self.signin_oidc.is_some() {
            Some("--signin-oidc")
        } else if self.signin_authorize_url.is_some() {
            Some("--signin-authorize-url")
        } else if self.signin_client_id.is_some() {
            Some("--signin-client-id")
        } else if !self.signin_restrict.is_empty() {
            Some("--signin-restrict")
        } else {
            None
        }
    }

    /// `server` signing users in as the flags say.
    pub(super) fn apply(self, server: Server) -> Result<Server, crate::Error> {
        let error = |message: String| crate::Error::config("sign-in", message);
        if self.signin_oidc.is_none() && self.signin_authorize_url.is_none() {
            return match self.given() {
                Some(flag) => Err(error(format!(
                    "{flag} needs a provider: --signin-oidc ISSUER, or --signin-authorize-url with --signin-token-url and --signin-userinfo-url"
                ))),
                None => Ok(server),
            };
        }
        let client_id = self.signin_client_id.ok_or_else(|| {
            error("sign-in needs the server's client at the provider: --signin-client-id ID (and its secret)".to_owned())
        })?;
        let secret = match (
            &self.signin_client_secret_file,
            std::env::var("TOOLSMITH_SIGNIN_CLIENT_SECRET"),
        ) {
            (Some(path), _) => std::fs::read_to_string(path)
                .map_err(|e| error(format!("the client secret file {path} cannot be read: {e}")))?
                .trim()
                .to_owned(),
            (None, Ok(secret)) => secret,
            (None, Err(_)) => {
                return Err(error(
                    "sign-in needs the client's secret: --signin-client-secret-file PATH or TOOLSMITH_SIGNIN_CLIENT_SECRET".to_owned(),
                ));
            }
        };
        let mut provider = match (self.signin_oidc, self.signin_authorize_url) {
            (Some(issuer), _) => Provider::oidc(issuer, client_id, secret),
            (None, Some(authorize)) => {
                let provider = Provider::oauth(
                    authorize,
                    self.signin_token_url.unwrap_or_default(),
                    self.signin_userinfo_url.unwrap_or_default(),
                    client_id,
                    secret,
                );
                match self.signin_subject_field {
                    Some(field) => provider.subject_field(field),
                    None => provider,
                }
            }
            (None, None) => unreachable!("checked above"),
        };
        if let Some(scopes) = self.signin_scopes {
            provider = provider.scopes(scopes.split_whitespace());
        }
        let mut sign_in = SignIn::new(provider);
        for rule in self.signin_restrict {
            sign_in = sign_in.restrict(rule);
        }
        for host in self.signin_allow_host {
            sign_in = sign_in.allow_host(host);
        }
        if let Some(seconds) = self.signin_token_lifetime {
            sign_in = sign_in.access_lifetime(Duration::from_secs(seconds));
        }
        if let Some(seconds) = self.signin_refresh_lifetime {
            sign_in = sign_in.refresh_lifetime(Duration::from_secs(seconds));
        }
        Ok(server.sign_in(sign_in))
    }
}
