//! `serve`: the flags that choose the serving policy and, with the `http` feature, serving
//! over Streamable HTTP. Every flag can also be set from a `TOOLSMITH_…` environment variable
//! when the `http` feature is on (containers); the policy's variables apply to `call` too.

use clap::Args;

use crate::server::ServeFuture;
use crate::{Server, server::Policy};

#[derive(Args, Debug, Default)]
pub(super) struct ServeArgs {
    /// Offer only read-only tools; calls to any other tool are refused.
    #[arg(long, value_parser = boolish)]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_READ_ONLY"))]
    read_only: bool,
    /// Offer no destructive tool; calls to one are refused.
    #[arg(long, value_parser = boolish)]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_DENY_DESTRUCTIVE"))]
    deny_destructive: bool,
    /// Offer no open-world tool (one that reaches outside the server); calls to one are
    /// refused.
    #[arg(long, value_parser = boolish)]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_DENY_OPEN_WORLD"))]
    deny_open_world: bool,
    /// Offer only the tools of this category.
    #[arg(long, value_name = "CATEGORY")]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_ONLY_CATEGORY"))]
    only_category: Option<String>,
    /// Offer only the tools with this tag.
    #[arg(long, value_name = "TAG")]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_ONLY_TAG"))]
    only_tag: Option<String>,
    /// Ask the user before every call of these tools too, besides those that declare
    /// `confirm`: destructive (every destructive tool), write (every tool that is not
    /// read-only), or none.
    #[arg(long, value_name = "destructive|write|none")]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_CONFIRM"))]
    confirm: Option<crate::server::Confirm>,
    /// Who decides a confirmation, in order (those after `client` only when the client cannot
    /// ask its user, as an unattended agent's cannot):
    /// `rules=FILE` (approval rules, TOML: allow or deny by tool, tag, hint class, caller and
    /// arguments); `webhook=URL` (an approval service, signed both ways with the secret in
    /// TOOLSMITH_APPROVE_SECRET, base64 of at least 32 bytes; feature `webhook`; decisions by
    /// callback on TOOLSMITH_APPROVE_CALLBACK_ADDR, posted to TOOLSMITH_APPROVE_CALLBACK_URL,
    /// handed between replicas through --task-store); `client`
    /// (the user, who decides what no approver does); `page=ADDR` (an approvals page on its
    /// own listener, opened with the token in TOOLSMITH_APPROVE_TOKEN as `/?token=…`; over
    /// HTTP builds). Repeat the flag, or separate them by commas.
    #[arg(long, value_name = "rules=FILE|webhook=URL|page=ADDR|client", value_parser = approver, value_delimiter = ',')]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_APPROVE"))]
    approve: Vec<Approve>,
    /// At most so many calls per second per caller, by the kind of tool its hints make it,
    /// e.g. `read=100/s,write=10/s,destructive=1/s`; a call past its rate is refused.
    #[arg(long, value_name = "RATES")]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_RATE_LIMIT"))]
    rate_limit: Option<crate::layer::Rates>,
    /// The key that seals a confirmation's request state (2026-07-28), as base64 of at
    /// least 32 bytes; replicas behind one load balancer need the same key. Without it, a
    /// random key of this process.
    #[arg(long, value_name = "BASE64", value_parser = super::state::key)]
    #[cfg_attr(
        feature = "http",
        arg(env = "TOOLSMITH_STATE_KEY", hide_env_values = true)
    )]
    state_key: Option<super::state::StateKey>,
    /// How long a confirmation's request state may be answered, in seconds (default 300).
    #[arg(long, value_name = "SECS", value_parser = super::state::ttl)]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_STATE_TTL"))]
    state_ttl: Option<std::time::Duration>,
    /// Tools per tools/list page.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    #[cfg_attr(feature = "http", arg(env = "TOOLSMITH_PAGE_SIZE"))]
    page_size: Option<u32>,
    #[cfg(feature = "http")]
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    tasks: super::tasks::TaskArgs,
    #[cfg(feature = "metrics")]
    #[command(flatten)]
    metrics: super::metrics::MetricsArgs,
}

/// Serving over Streamable HTTP.
#[cfg(feature = "http")]
#[derive(Args, Debug, Default)]
struct HttpArgs {
    /// Serve over Streamable HTTP at ADDR (e.g. 127.0.0.1:8000; port 0 picks a free port)
    /// instead of stdio.
    #[arg(long, value_name = "ADDR", env = "TOOLSMITH_HTTP")]
    http: Option<String>,
    /// The path of the MCP endpoint.
    #[arg(
        long,
        value_name = "PATH",
        env = "TOOLSMITH_HTTP_PATH",
        default_value = "/mcp"
    )]
    http_path: String,
    /// The URL clients use, behind a proxy (default: http://ADDR/PATH); its host and origin
    /// are allowed.
    #[arg(long, value_name = "URL", env = "TOOLSMITH_PUBLIC_URL")]
    public_url: Option<String>,
    /// Also allow this Host header (repeatable; comma-separated in the variable).
    #[arg(
        long,
        value_name = "HOST",
        env = "TOOLSMITH_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    allowed_host: Vec<String>,
    /// Also allow this Origin (repeatable; comma-separated in the variable).
    #[arg(
        long,
        value_name = "ORIGIN",
        env = "TOOLSMITH_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    allowed_origin: Vec<String>,
    /// Keep a session per client (Mcp-Session-Id) instead of serving statelessly.
    #[arg(long, env = "TOOLSMITH_SESSIONS", value_parser = boolish)]
    sessions: bool,
    /// Answer each POST with a server-sent event stream instead of one JSON body.
    #[arg(long, env = "TOOLSMITH_SSE_RESPONSES", value_parser = boolish)]
    sse_responses: bool,
    /// The largest request body accepted, in bytes.
    #[arg(long, value_name = "BYTES", env = "TOOLSMITH_MAX_BODY", default_value_t = crate::Server::DEFAULT_MAX_BODY)]
    max_body: usize,
    /// Seconds a client may take to send a request head; then its connection is closed.
    #[arg(long, value_name = "SECS", env = "TOOLSMITH_HTTP_HEADER_TIMEOUT", value_parser = seconds, default_value = "10")]
    http_header_timeout: std::time::Duration,
    /// Seconds a client may take to send a request body; then it gets 408.
    #[arg(long, value_name = "SECS", env = "TOOLSMITH_HTTP_BODY_TIMEOUT", value_parser = seconds, default_value = "30")]
    http_body_timeout: std::time::Duration,
    /// Seconds a keep-alive connection may stay silent between requests; then it is closed.
    #[arg(long, value_name = "SECS", env = "TOOLSMITH_HTTP_IDLE_TIMEOUT", value_parser = seconds, default_value = "60")]
    http_idle_timeout: std::time::Duration,
    /// The most connections open at once; more wait until one closes (default: 3/4 of the
    /// file-descriptor limit, at most 16384).
    #[arg(long, value_name = "N", env = "TOOLSMITH_MAX_CONNECTIONS", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: Option<u32>,
    /// With --sessions, the most sessions open at once; past it, initialize gets 503.
    #[arg(long, value_name = "N", env = "TOOLSMITH_MAX_SESSIONS", default_value_t = crate::Server::DEFAULT_MAX_SESSIONS as u32, value_parser = clap::value_parser!(u32).range(1..))]
    max_sessions: u32,
    #[cfg(feature = "auth")]
    #[command(flatten)]
    auth: AuthArgs,
}

/// Authorization: OAuth bearer tokens (JWTs) from one issuer.
#[cfg(feature = "auth")]
#[derive(Args, Debug, Default)]
struct AuthArgs {
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

#[cfg(feature = "auth")]
impl AuthArgs {
    /// `server` with this authorization and these scope names.
    /// The first authorization flag given, when any is (they apply only over HTTP).
    fn given(&self) -> Option<&'static str> {
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

    fn apply(self, mut server: Server) -> Result<Server, crate::Error> {
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

/// Serves `server` as `args` say: over HTTP when `--http` is given, else over stdio; and the
/// approvals pages `--approve page=ADDR` names and the webhook's callbacks
/// (`TOOLSMITH_APPROVE_CALLBACK_ADDR`), each on its own listener (bound first: an address
/// that cannot be had stops the start).
pub(super) fn serve(server: Server, args: ServeArgs) -> ServeFuture {
    #[cfg(feature = "http")]
    {
        let listeners: Vec<(&'static str, axum::Router, String)> = args
            .approve
            .iter()
            .filter_map(|approve| match approve {
                Approve::Page(page, addr) => Some(("approvals page", page.router(), addr.clone())),
                #[cfg(feature = "webhook")]
                Approve::Webhook(hook, Some(addr)) => {
                    Some(("approval callbacks", hook.callback_router(), addr.clone()))
                }
                _ => None,
            })
            .collect();
        if !listeners.is_empty() {
            let serving = serve_mcp(server, args);
            return Box::pin(async move {
                for (what, router, addr) in listeners {
                    let listener = tokio::net::TcpListener::bind(&addr)
                        .await
                        .map_err(|err| crate::Error::config(what, format!("{addr}: {err}")))?;
                    tracing::info!(addr = %addr, "{what} listening");
                    tokio::spawn(axum::serve(listener, router).into_future());
                }
                serving.await
            });
        }
    }
    serve_mcp(server, args)
}

/// Serves `server` as `args` say: over HTTP when `--http` is given, else over stdio.
fn serve_mcp(server: Server, args: ServeArgs) -> ServeFuture {
    let server = with_policy(server, &args);
    #[cfg(feature = "metrics")]
    let (server, args) = {
        let mut args = args;
        (std::mem::take(&mut args.metrics).apply(server), args)
    };
    #[cfg(feature = "http")]
    if let Some(addr) = args.http.http.clone() {
        let http = args.http;
        let mut server = server
            .http_path(http.http_path)
            .sessions(http.sessions)
            .sse_responses(http.sse_responses)
            .max_body(http.max_body)
            .http_header_timeout(http.http_header_timeout)
            .http_body_timeout(http.http_body_timeout)
            .http_idle_timeout(http.http_idle_timeout)
            .max_sessions(http.max_sessions as usize);
        if let Some(connections) = http.max_connections {
            server = server.max_connections(connections as usize);
        }
        if let Some(url) = http.public_url {
            server = server.public_url(url);
        }
        for host in http.allowed_host {
            server = server.allowed_host(host);
        }
        for origin in http.allowed_origin {
            server = server.allowed_origin(origin);
        }
        #[cfg(feature = "auth")]
        let server = match http.auth.apply(server) {
            Ok(server) => server,
            Err(err) => return Box::pin(std::future::ready(Err(err))),
        };
        return Box::pin(async move { server.serve_http(addr.as_str()).await });
    }
    #[cfg(feature = "auth")]
    if let Some(flag) = args.http.auth.given() {
        let error = crate::Error::config(
            "authorization",
            format!(
                "{flag} applies only over HTTP: add --http ADDR to serve over HTTP, or leave the authorization flags out to serve over stdio"
            ),
        );
        return Box::pin(std::future::ready(Err(error)));
    }
    server.serve_stdio_boxed()
}

/// An approver named on the command line.
#[derive(Clone, Debug)]
pub(super) enum Approve {
    Rules(crate::approve::Rules),
    /// The page, and the address it listens on.
    #[cfg(feature = "http")]
    Page(crate::approve::Page, String),
    /// The webhook, and the address its callbacks are taken on, if any.
    #[cfg(feature = "webhook")]
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Webhook(crate::approve::Webhook, Option<String>),
    Client,
}

/// `--approve`'s value: `client`, or `rules=FILE` (read now: a wrong file stops the start).
fn approver(value: &str) -> Result<Approve, String> {
    match value.split_once('=') {
        None if value == "client" => Ok(Approve::Client),
        Some(("rules", path)) if !path.is_empty() => {
            crate::approve::Rules::from_path(std::path::Path::new(path))
                .map(Approve::Rules)
                .map_err(|err| err.to_string())
        }
        #[cfg(feature = "webhook")]
        Some(("webhook", url)) => {
            use base64::Engine;
            let secret = std::env::var("TOOLSMITH_APPROVE_SECRET").map_err(|_| {
                "webhook=URL needs TOOLSMITH_APPROVE_SECRET: the secret it shares with the service (base64 of at least 32 random bytes)".to_owned()
            })?;
            let secret = base64::engine::general_purpose::STANDARD
                .decode(secret.trim())
                .map_err(|err| format!("TOOLSMITH_APPROVE_SECRET is not base64 ({err})"))?;
            let hook = crate::approve::Webhook::new(url, secret)?;
            // Decisions by callback, on a listener of their own (feature `http`).
            let addr = std::env::var("TOOLSMITH_APPROVE_CALLBACK_ADDR").ok();
            #[cfg(feature = "http")]
            let hook = match &addr {
                Some(addr) => {
                    let url = std::env::var("TOOLSMITH_APPROVE_CALLBACK_URL")
                        .unwrap_or_else(|_| format!("http://{addr}/"));
                    hook.callbacks(url)
                }
                None => hook,
            };
            #[cfg(not(feature = "http"))]
            if addr.is_some() {
                return Err("TOOLSMITH_APPROVE_CALLBACK_ADDR needs the `http` feature".into());
            }
            Ok(Approve::Webhook(hook, addr))
        }
        #[cfg(feature = "http")]
        Some(("page", addr)) if !addr.is_empty() => {
            let token = std::env::var("TOOLSMITH_APPROVE_TOKEN").map_err(|_| {
                "page=ADDR needs TOOLSMITH_APPROVE_TOKEN: the operators' token for the approvals page (at least 16 random characters)".to_owned()
            })?;
            crate::approve::Page::new(token).map(|page| Approve::Page(page, addr.to_owned()))
        }
        #[cfg(not(feature = "webhook"))]
        Some(("webhook", _)) => Err(missing_feature("webhook=URL", "webhook")),
        #[cfg(not(feature = "http"))]
        Some(("page", addr)) if !addr.is_empty() => Err(missing_feature("page=ADDR", "http")),
        _ => Err(format!(
            "{value:?} is not an approver: give rules=FILE, webhook=URL, page=ADDR or client"
        )),
    }
}

/// What an approver this build was made without says: which feature of `toolsmith` it needs.
#[cfg(any(not(feature = "webhook"), not(feature = "http")))]
fn missing_feature(approver: &str, feature: &str) -> String {
    format!(
        "{approver}: this server was built without it; build it with toolsmith's `{feature}` feature"
    )
}

/// The confirmation policy of `server` with `args`: the flag (or its variable) when given.
pub(super) fn confirm_of(server: &Server, args: &ServeArgs) -> crate::server::Confirm {
    args.confirm.unwrap_or(server.confirm)
}

/// `server` with its policy narrowed by `args` (flags, or their environment variables), and
/// `args`' page size, confirmation policy and state key.
pub(super) fn with_policy(mut server: Server, args: &ServeArgs) -> Server {
    server.confirm = confirm_of(&server, args);
    if let Some(key) = &args.state_key {
        server = server.state_key(key.bytes().to_vec());
    }
    if let Some(ttl) = args.state_ttl {
        server = server.state_ttl(ttl);
    }
    server = args.tasks.apply(server);
    // Before `client`: asked first; after it: only when the client cannot ask its user.
    let mut after_client = false;
    for approve in &args.approve {
        let approver: std::sync::Arc<dyn crate::approve::Approver> = match approve {
            Approve::Rules(rules) => std::sync::Arc::new(rules.clone()),
            #[cfg(feature = "webhook")]
            Approve::Webhook(hook, _) => match args.tasks.store() {
                // A decision that came to another replica is handed over through the store.
                Some(store) => std::sync::Arc::new(hook.clone().callback_store(store)),
                None => std::sync::Arc::new(hook.clone()),
            },
            #[cfg(feature = "http")]
            // The page lists the server's remembered approvals, and revokes them.
            Approve::Page(page, _) => std::sync::Arc::new(page.clone().grants(server.grants())),
            Approve::Client => {
                after_client = true;
                continue;
            }
        };
        server = if after_client {
            server.approver_instead_of_client(approver)
        } else {
            server.approver(approver)
        };
    }
    if let Some(rates) = args.rate_limit {
        server = server.layer(crate::layer::RateLimit::new(rates));
    }
    let policy = std::mem::take(&mut server.policy);
    server.policy = policy.narrowed_by(Policy {
        read_only: args.read_only,
        deny_destructive: args.deny_destructive,
        deny_open_world: args.deny_open_world,
        only_category: args.only_category.clone(),
        only_tag: args.only_tag.clone(),
    });
    match args.page_size {
        Some(size) => server.page_size(size as usize),
        None => server,
    }
}

/// A boolean flag's value from its environment variable: the usual spellings, in any case;
/// empty is false (as if unset).
fn boolish(value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "0" | "false" | "no" | "off" => Ok(false),
        "1" | "true" | "yes" | "on" => Ok(true),
        _ => Err("expected a boolean: 1/0, true/false, yes/no, on/off".to_owned()),
    }
}

/// A duration in seconds, e.g. `10` or `0.5`, more than zero.
#[cfg(feature = "http")]
fn seconds(value: &str) -> Result<std::time::Duration, String> {
    match value.trim().parse::<f64>() {
        Ok(secs) if secs > 0.0 && secs.is_finite() && secs < 1e9 => {
            Ok(std::time::Duration::from_secs_f64(secs))
        }
        _ => Err("expected a number of seconds above zero, e.g. 10 or 0.5".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::boolish;

    #[cfg(feature = "http")]
    #[test]
    fn timeouts_are_seconds_above_zero() {
        use super::seconds;
        use std::time::Duration;
        assert_eq!(seconds("10"), Ok(Duration::from_secs(10)));
        assert_eq!(seconds(" 0.5 "), Ok(Duration::from_millis(500)));
        for bad in ["0", "-1", "ten", "", "inf", "NaN"] {
            assert!(
                seconds(bad).unwrap_err().contains("seconds above zero"),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn booleans_take_the_usual_spellings() {
        for yes in ["1", "true", "TRUE", "yes", "Yes", "on", " on "] {
            assert_eq!(boolish(yes), Ok(true), "{yes:?}");
        }
        for no in ["", "0", "false", "False", "no", "off", "OFF"] {
            assert_eq!(boolish(no), Ok(false), "{no:?}");
        }
        for bad in ["2", "maybe", "y es", "truee"] {
            let err = boolish(bad).unwrap_err();
            assert!(err.contains("1/0, true/false, yes/no, on/off"), "{err}");
        }
    }
}
