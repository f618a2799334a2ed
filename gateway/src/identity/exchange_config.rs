//! [`Exchange`]: how the gateway exchanges each caller's token for one an upstream accepts
//! (RFC 8693), as configured: in Rust, or as a server entry's `exchange` table.

use serde::Deserialize;

/// The token type of a subject token that is an OAuth access token (RFC 8693 section 3).
pub(crate) const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";

/// Token exchange (RFC 8693) for an upstream that accepts its users' own tokens: on each
/// caller's behalf the gateway presents the caller's access token at `token_endpoint`,
/// authenticated as its own client (`client_id` with a secret, or a private-key JWT), and
/// sends the upstream the token it gets back, for the configured audience and scopes. Each
/// caller's token is kept until 30 s before it expires (5 minutes when it says nothing of its
/// expiry), while the caller presents the same token, for at most 10,000 callers. A refused exchange is the caller's
/// tool error naming the upstream and the endpoint's reason; nothing falls back to a shared
/// credential. The gateway lists the upstream's tools as itself (`client_credentials` at the
/// same endpoint, for the same audience and scopes).
///
/// A secret (`client_secret`, `private_key`) may be named rather than written: `${NAME}` is
/// the gateway's environment variable `NAME`, `${file:PATH}` a file's content, read when it
/// is first needed (an error names what is missing).
///
/// ```
/// use toolsmith_gateway::{Exchange, Upstream};
///
/// let exchange = Exchange::new("https://idp.example/token", "gateway")
///     .client_secret("${TICKETS_SECRET}")
///     .audience("https://tickets.example/mcp")
///     .scopes(["tickets:read"]);
/// let shown = format!("{exchange:?}");
/// // The audience is also the resource (RFC 8707) unless one is given.
/// assert!(shown.contains(r#"resource: Some("https://tickets.example/mcp")"#), "{shown}");
/// let tickets = Upstream::http("tickets", "https://tickets.example/mcp").exchange(exchange);
/// assert_eq!(tickets.name(), "tickets");
/// ```
#[derive(Clone)]
pub struct Exchange {
    pub(crate) token_endpoint: String,
    pub(crate) client_id: String,
    pub(crate) client_secret: Option<String>,
    pub(crate) private_key: Option<String>,
    pub(crate) key_id: Option<String>,
    pub(crate) audience: Option<String>,
    resource: Option<String>,
    pub(crate) scopes: Vec<String>,
    pub(crate) subject_token_type: String,
    pub(crate) ca_file: Option<std::path::PathBuf>,
}

impl Exchange {
    /// Exchange at `token_endpoint` (an `https://` URL; `http://` for a loopback host only:
    /// the callers' tokens and the gateway's secret travel there), the gateway's client
    /// there being `client_id`; give its [`client_secret`](Exchange::client_secret) or its
    /// [`private_key`](Exchange::private_key).
    ///
    /// ```
    /// let exchange = toolsmith_gateway::Exchange::new("https://idp.example/token", "gateway");
    /// assert!(format!("{exchange:?}").contains("https://idp.example/token"));
    /// ```
    pub fn new(token_endpoint: impl Into<String>, client_id: impl Into<String>) -> Self {
        Exchange {
            token_endpoint: token_endpoint.into(),
            client_id: client_id.into(),
            client_secret: None,
            private_key: None,
            key_id: None,
            audience: None,
            resource: None,
            scopes: Vec::new(),
            subject_token_type: ACCESS_TOKEN_TYPE.to_owned(),
            ca_file: None,
        }
    }

    /// The gateway's client secret, sent as HTTP Basic credentials (client_secret_basic,
    /// RFC 6749 section 2.3.1). Never shown (`Debug` says only that it is set).
    ///
    /// ```
    /// let exchange = toolsmith_gateway::Exchange::new("https://idp.example/token", "gateway")
    ///     .client_secret("s3cret");
    /// let shown = format!("{exchange:?}");
    /// assert!(shown.contains("client_secret_basic") && !shown.contains("s3cret"), "{shown}");
    /// ```
    pub fn client_secret(mut self, value: impl Into<String>) -> Self {
        self.client_secret = Some(value.into());
        self.private_key = None;
        self
    }

    /// The gateway's private key (PEM: an EC P-256 key in PKCS#8, `BEGIN PRIVATE KEY`, signs
    /// ES256; an RSA key signs RS256): each request carries a fresh JWT it signs
    /// (private_key_jwt, RFC 7523: iss and sub the client id, aud the token endpoint, valid
    /// 60 s). Usually named: `${file:/etc/gateway/key.pem}`.
    ///
    /// ```
    /// let exchange = toolsmith_gateway::Exchange::new("https://idp.example/token", "gateway")
    ///     .private_key("${file:/etc/gateway/key.pem}")
    ///     .key_id("2026-12");
    /// assert!(format!("{exchange:?}").contains("private_key_jwt"));
    /// ```
    pub fn private_key(mut self, pem: impl Into<String>) -> Self {
        self.private_key = Some(pem.into());
        self.client_secret = None;
        self
    }

    /// The `kid` of the private key's JWTs (none by default).
    ///
    /// ```
    /// let exchange = toolsmith_gateway::Exchange::new("https://idp.example/token", "gateway")
    ///     .private_key("${GATEWAY_KEY}")
    ///     .key_id("key-1");
    /// assert!(format!("{exchange:?}").contains("key-1"));
    /// ```
    pub fn key_id(mut self, kid: impl Into<String>) -> Self {
        self.key_id = Some(kid.into());
        self
    }

    /// The upstream's audience, sent as `audience`; unless a
    /// [`resource`](Exchange::resource) is given, also as `resource` (RFC 8707) when it is an
    /// absolute URL.
    ///
    /// ```
    /// let exchange = toolsmith_gateway::Exchange::new("https://idp.example/token", "gateway")
    ///     .audience("tickets");
    /// // Not a URL: no resource is sent.
    /// assert!(format!("{exchange:?}").contains("resource: None"));
    /// ```
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// The `resource` sent (RFC 8707; default: the audience, when it is an absolute URL).
    ///
    /// ```
    /// let exchange = toolsmith_gateway::Exchange::new("https://idp.example/token", "gateway")
    ///     .audience("tickets")
    ///     .resource("https://tickets.example/mcp");
    /// assert!(format!("{exchange:?}").contains(r#"resource: Some("https://tickets.example/mcp")"#));
    /// ```
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = Some(resource.into());
        self
    }

    /// The scopes asked for (sent space-separated as `scope`; none by default).
    ///
    /// ```
    /// let exchange = toolsmith_gateway::Exchange::new("https://idp.example/token", "gateway")
    ///     .scopes(["tickets:read", "tickets:write"]);
    /// assert!(format!("{exchange:?}").contains("tickets:write"));
    /// ```
    pub fn scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The type of the caller's token, as sent in `subject_token_type` (default
    /// `urn:ietf:params:oauth:token-type:access_token`).
    ///
    /// ```
    /// let exchange = toolsmith_gateway::Exchange::new("https://idp.example/token", "gateway")
    ///     .subject_token_type("urn:ietf:params:oauth:token-type:jwt");
    /// assert!(format!("{exchange:?}").contains("token-type:jwt"));
    /// ```
    pub fn subject_token_type(mut self, kind: impl Into<String>) -> Self {
        self.subject_token_type = kind.into();
        self
    }

    /// Trusts the certificate authorities in `path` (PEM) for the token endpoint's HTTPS,
    /// beside the system's (a server entry's `ca_file` is trusted for both the upstream and
    /// its token endpoint). Read at the first exchange; one that cannot be used fails it,
    /// naming the file.
    ///
    /// ```
    /// let exchange = toolsmith_gateway::Exchange::new("https://idp.corp.internal/token", "gateway")
    ///     .ca_file("/etc/corp/ca.pem");
    /// assert!(format!("{exchange:?}").contains("/etc/corp/ca.pem"));
    /// ```
    pub fn ca_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.ca_file = Some(path.into());
        self
    }

    /// The `resource` sent: the one given, else the audience when it is an absolute URL.
    pub(crate) fn sent_resource(&self) -> Option<&str> {
        self.resource.as_deref().or_else(|| {
            self.audience
                .as_deref()
                .filter(|audience| url::Url::parse(audience).is_ok())
        })
    }

    /// What is wrong with it, if anything: an endpoint that is not an http(s) URL, no client
    /// id, no client credentials, a `key_id` without a key.
    pub(crate) fn check(&self) -> Result<(), String> {
        let endpoint = url::Url::parse(&self.token_endpoint)
            .map_err(|err| format!("`token_endpoint` {:?}: {err}", self.token_endpoint))?;
        if !matches!(endpoint.scheme(), "http" | "https") {
            return Err(format!(
                "`token_endpoint` {:?} is not an http(s) URL",
                self.token_endpoint
            ));
        }
        // The callers' tokens and the gateway's secret travel there.
        let loopback = match endpoint.host() {
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        };
        if endpoint.scheme() == "http" && !loopback {
            return Err(format!(
                "`token_endpoint` {:?} is plain http: use https (plain http is for a loopback host only)",
                crate::told::shown_url(&self.token_endpoint)
            ));
        }
        if self.client_id.is_empty() {
            return Err(
                "`client_id` is empty: give the gateway's client id at the token endpoint".into(),
            );
        }
        if self.client_secret.is_none() && self.private_key.is_none() {
            return Err(
                "no client credentials: give `client_secret` or `private_key` (the gateway authenticates as its own client)"
                    .into(),
            );
        }
        if self.key_id.is_some() && self.private_key.is_none() {
            return Err("`key_id` names a `private_key`: give one".into());
        }
        Ok(())
    }
}

/// Its endpoint, client, audience, resource, scopes and how the client authenticates:
/// never the secret or the key.
impl std::fmt::Debug for Exchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let auth = match (&self.client_secret, &self.private_key) {
            (Some(_), _) => "client_secret_basic",
            (None, Some(_)) => "private_key_jwt",
            (None, None) => "none",
        };
        f.debug_struct("Exchange")
            .field(
                "token_endpoint",
                &crate::told::shown_url(&self.token_endpoint),
            )
            .field("client_id", &self.client_id)
            .field("client_auth", &auth)
            .field("key_id", &self.key_id)
            .field("audience", &self.audience)
            .field("resource", &self.sent_resource())
            .field("scopes", &self.scopes)
            .field("subject_token_type", &self.subject_token_type)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

/// A server entry's `exchange` table, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExchangeEntry {
    token_endpoint: String,
    client_id: String,
    audience: Option<String>,
    resource: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    client_secret: Option<String>,
    private_key: Option<String>,
    key_id: Option<String>,
    subject_token_type: Option<String>,
}

/// Never its secret or key.
impl std::fmt::Debug for ExchangeEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.to_exchange().fmt(f)
    }
}

impl ExchangeEntry {
    /// Its secrets (`${file:PATH}` in them) with `root` applied: a configuration file's
    /// folder for a relative path.
    pub(crate) fn root(&mut self, root: &dyn Fn(&str) -> String) {
        for secret in [&mut self.client_secret, &mut self.private_key]
            .into_iter()
            .flatten()
        {
            *secret = root(secret);
        }
    }

    /// What is wrong with it (both a secret and a key, or what [`Exchange`] refuses).
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.client_secret.is_some() && self.private_key.is_some() {
            return Err("both `client_secret` and `private_key`: give one".into());
        }
        self.to_exchange().check()
    }

    pub(crate) fn to_exchange(&self) -> Exchange {
        let mut exchange = Exchange::new(&self.token_endpoint, &self.client_id)
            .scopes(self.scopes.iter().cloned());
        if let Some(secret) = &self.client_secret {
            exchange = exchange.client_secret(secret);
        }
        if let Some(pem) = &self.private_key {
            exchange = exchange.private_key(pem);
        }
        exchange.key_id = self.key_id.clone();
        exchange.audience = self.audience.clone();
        exchange.resource = self.resource.clone();
        if let Some(kind) = &self.subject_token_type {
            exchange = exchange.subject_token_type(kind);
        }
        exchange
    }
}

#[cfg(test)]
#[path = "exchange_config_tests.rs"]
mod tests;
