//! The upstreams of a gateway, from a file: Claude Desktop's `claude_desktop_config.json` as it
//! is (`mcpServers`: a stdio entry's `command`, `args` and `env`; a remote entry's `type`,
//! `url` and `headers`), or TOML in the same shape (`[servers.NAME]`).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::{OpenApi, Upstream};

/// The upstreams a file names, in name order.
///
/// ```
/// let json = r#"{"mcpServers": {
///     "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},
///     "notes": {"command": "python", "args": ["notes.py"], "env": {"NOTES_DIR": "/srv"}}
/// }}"#;
/// let upstreams = toolsmith_gateway::Config::from_json(json).unwrap().upstreams();
/// assert_eq!(upstreams[1].name(), "notes");
/// assert_eq!(upstreams[1].tool_prefix(), "notes_");
///
/// let toml = r#"
///     [servers.notes]
///     command = "python"
///     args = ["notes.py"]
///     prefix = ""
///     call_timeout_secs = 30
/// "#;
/// let upstreams = toolsmith_gateway::Config::from_toml(toml).unwrap().upstreams();
/// assert_eq!(upstreams[0].tool_prefix(), "");
/// ```
#[derive(Deserialize)]
pub struct Config {
    #[serde(rename = "mcpServers", alias = "servers")]
    servers: BTreeMap<String, Server>,
    /// The file's other keys (Claude Desktop's `globalShortcut`, `preferences`): see
    /// `config_keys.rs`.
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

/// The form a configuration is written in.
#[derive(Clone, Copy)]
enum Format {
    /// Claude Desktop's: keys of other programs are left out.
    Json,
    /// The gateway's own: every key is one it reads.
    Toml,
}

/// The upstreams' names only: their entries hold credentials as written (`env`, `headers`,
/// client secrets).
///
/// ```
/// let toml = r#"
///     [servers.wiki]
///     url = "https://wiki.example/mcp"
///     headers = { Authorization = "Bearer s3cret" }
/// "#;
/// let config = toolsmith_gateway::Config::from_toml(toml).unwrap();
/// let shown = format!("{config:?}");
/// assert!(shown.contains("wiki") && !shown.contains("s3cret"), "{shown}");
/// ```
impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("servers", &self.servers.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// One upstream's entry (its keys: `config_keys.rs`).
#[derive(Debug, Deserialize)]
struct Server {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// A remote entry's transport (`"http"`, `"streamable-http"`), URL and headers.
    #[serde(rename = "type")]
    kind: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    prefix: Option<String>,
    /// Globs of the upstream's tool names: only those served, and those left out.
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    /// Certificate authorities (PEM) trusted for a remote entry's or an API's HTTPS.
    ca_file: Option<std::path::PathBuf>,
    call_timeout_secs: Option<u64>,
    connect_timeout_secs: Option<u64>,
    /// How long it may take to list its tools (and each of its other lists).
    list_timeout_secs: Option<u64>,
    /// How long a read-only idempotent tool's answer is kept (none by default).
    cache_ttl_secs: Option<u64>,
    /// The revision its session starts with: `"2025-11-25"` (`initialize`, the default) or
    /// `"2026-07-28"` (`server/discover`).
    revision: Option<String>,
    /// Tokens the gateway's own sign-in mints for it, per caller.
    mint: Option<crate::identity::entries::MintEntry>,
    /// One session (a child, for a started server) per caller, and its bounds.
    per_caller: Option<bool>,
    max_callers: Option<usize>,
    idle_secs: Option<u64>,
    /// An HTTP API's OpenAPI document (a path or a URL), and how it is served.
    openapi: Option<String>,
    base_url: Option<String>,
    /// By security scheme: an API key, a bearer token, `user:password`; `${NAME}` reads the
    /// environment.
    #[serde(default)]
    credentials: BTreeMap<String, String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    methods: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    deprecated: Option<bool>,
    open_world: Option<bool>,
    max_answer_bytes: Option<usize>,
    max_document_bytes: Option<usize>,
    /// Whether the credentials go to a fetched document's server at another origin.
    allow_cross_origin_servers: Option<bool>,
    /// Each caller's token exchanged for one the upstream accepts (RFC 8693).
    exchange: Option<crate::identity::exchange_config::ExchangeEntry>,
    /// Per-user sign-in at the upstream's own authorization server (`[servers.NAME.sign_in]`).
    sign_in: Option<crate::identity::entries::SignInEntry>,
    /// Its keys the gateway does not read (see `config_keys.rs`).
    #[serde(flatten)]
    unknown: BTreeMap<String, IgnoredAny>,
}

impl Server {
    /// An HTTP API's entry as what [`Upstream::openapi`] takes.
    fn api(&self, document: &str) -> OpenApi {
        let mut api = OpenApi::new(document)
            .only_tags(self.tags.iter().cloned())
            .only_methods(self.methods.iter().cloned())
            .only_paths(self.paths.iter().cloned())
            .deprecated(self.deprecated.unwrap_or(false))
            .open_world(self.open_world.unwrap_or(false))
            .allow_cross_origin_servers(self.allow_cross_origin_servers.unwrap_or(false));
        if let Some(url) = &self.base_url {
            api = api.base_url(url);
        }
        for (scheme, value) in &self.credentials {
            api = api.credential(scheme, value);
        }
        if let Some(bytes) = self.max_answer_bytes {
            api = api.max_answer_bytes(bytes);
        }
        if let Some(bytes) = self.max_document_bytes {
            api = api.max_document_bytes(bytes);
        }
        api
    }

    /// The keys of an HTTP API's entry that this one sets, when it is not one.
    fn api_keys(&self) -> Vec<&'static str> {
        [
            ("base_url", self.base_url.is_some()),
            ("credentials", !self.credentials.is_empty()),
            ("tags", !self.tags.is_empty()),
            ("methods", !self.methods.is_empty()),
            ("paths", !self.paths.is_empty()),
            ("deprecated", self.deprecated.is_some()),
            ("open_world", self.open_world.is_some()),
            ("max_answer_bytes", self.max_answer_bytes.is_some()),
            ("max_document_bytes", self.max_document_bytes.is_some()),
            (
                "allow_cross_origin_servers",
                self.allow_cross_origin_servers.is_some(),
            ),
        ]
        .into_iter()
        .filter(|(_, set)| *set)
        .map(|(key, _)| key)
        .collect()
    }
}

impl Config {
    /// Reads `path`: TOML when its name ends in `.toml`, else JSON. An error says what is
    /// wrong, and where. A relative path in it (an `openapi` document, a `ca_file`, a
    /// `${file:PATH}`) is taken from the file's folder.
    pub fn from_path(path: &Path) -> Result<Config, String> {
        let config = crate::file::read(path, Config::from_toml, Config::from_json)?;
        Ok(config.rooted(path.parent().unwrap_or(Path::new(""))))
    }

    /// Claude Desktop's JSON (`{"mcpServers": {...}}`); a relative path in it is taken from
    /// the working directory.
    pub fn from_json(text: &str) -> Result<Config, String> {
        let config: Config = serde_json::from_str(text).map_err(|err| err.to_string())?;
        config.unknown_keys(Format::Json)?;
        Config::checked(config)
    }

    /// TOML (`[servers.NAME]`, or `[mcpServers.NAME]`); a relative path in it is taken from
    /// the working directory.
    pub fn from_toml(text: &str) -> Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|err| err.to_string())?;
        config.unknown_keys(Format::Toml)?;
        Config::checked(config)
    }

    fn checked(config: Config) -> Result<Config, String> {
        if config.servers.is_empty() {
            return Err("no upstream: name at least one under `mcpServers`".into());
        }
        for (name, server) in &config.servers {
            if server.openapi.is_some() {
                if server.url.is_some() || server.command.is_some() {
                    return Err(format!(
                        "upstream '{name}' has `openapi` and `{}`: an HTTP API is reached by its document; give one",
                        if server.url.is_some() {
                            "url"
                        } else {
                            "command"
                        }
                    ));
                }
                if !server.args.is_empty() || !server.env.is_empty() || !server.headers.is_empty() {
                    return Err(format!(
                        "upstream '{name}' is an HTTP API: give its credentials as `credentials` (by security scheme), not `args`, `env` or `headers`"
                    ));
                }
                if server.revision.is_some() {
                    return Err(format!(
                        "upstream '{name}' is an HTTP API: `revision` is an MCP server's"
                    ));
                }
            } else if let Some(key) = server.api_keys().first() {
                return Err(format!(
                    "upstream '{name}': `{key}` is an HTTP API's (with `openapi`)"
                ));
            }
            if let Some(sign_in) = &server.sign_in {
                sign_in.check(name, server.url.as_ref())?;
                if server.exchange.is_some() {
                    return Err(format!(
                        "upstream '{name}' has `sign_in` and `exchange`: its users sign in at its own authorization server, or their tokens are exchanged for its; give one"
                    ));
                }
                if server.mint.is_some() {
                    return Err(format!(
                        "upstream '{name}' has `sign_in` and `mint`: its users sign in at its own authorization server, or it trusts the gateway's tokens; give one"
                    ));
                }
            }
            for (what, bytes) in [
                ("max_answer_bytes", server.max_answer_bytes),
                ("max_document_bytes", server.max_document_bytes),
            ] {
                if bytes == Some(0) {
                    return Err(format!("upstream '{name}': `{what}` is 0: give 1 or more"));
                }
            }
            match (server.kind.as_deref(), &server.url, &server.command) {
                _ if server.openapi.is_some() => {}
                (Some("sse"), _, _) => {
                    return Err(format!(
                        "upstream '{name}' speaks the old HTTP+SSE transport: give the server's Streamable HTTP endpoint with \"type\": \"http\""
                    ));
                }
                (_, Some(_), Some(_)) => {
                    return Err(format!(
                        "upstream '{name}' has both `command` and `url`: give one"
                    ));
                }
                (_, Some(url), None) => {
                    if !(url.starts_with("http://") || url.starts_with("https://")) {
                        return Err(format!(
                            "upstream '{name}': `url` {url:?} is not an http(s) URL"
                        ));
                    }
                    if !server.args.is_empty() || !server.env.is_empty() {
                        return Err(format!(
                            "upstream '{name}' is remote: `args` and `env` are a started server's; give its credentials as `headers`"
                        ));
                    }
                }
                (_, None, command) => {
                    if command.as_deref().is_none_or(str::is_empty) {
                        return Err(format!(
                            "upstream '{name}' has no `command`: give the program to start (or `url` for a remote server)"
                        ));
                    }
                    if !server.headers.is_empty() {
                        return Err(format!(
                            "upstream '{name}' is started here: `headers` are a remote server's; give its credentials as `env`"
                        ));
                    }
                    if server.ca_file.is_some() {
                        return Err(format!(
                            "upstream '{name}' is started here: `ca_file` is a remote server's or an API's (its HTTPS)"
                        ));
                    }
                }
            }
            if let Some(revision) = &server.revision
                && !matches!(revision.as_str(), "2025-11-25" | "2026-07-28")
            {
                return Err(format!(
                    "upstream '{name}': `revision` {revision:?} is not one the gateway starts a session with: give \"2025-11-25\" (initialize, the default) or \"2026-07-28\" (server/discover)"
                ));
            }
            if let Some(exchange) = &server.exchange {
                if server.mint.is_some() {
                    return Err(format!(
                        "upstream '{name}' has both `exchange` and `mint`: give one way to get each caller's token"
                    ));
                }
                if server.openapi.is_some()
                    || (server.url.is_none() && server.per_caller != Some(true))
                {
                    return Err(format!(
                        "upstream '{name}': `exchange` needs a remote MCP server (`url`), or one started per caller (`per_caller = true`, its `env` naming `${{caller.token}}`): the exchanged token is each caller's"
                    ));
                }
                if server
                    .headers
                    .keys()
                    .any(|h| h.eq_ignore_ascii_case("authorization"))
                {
                    return Err(format!(
                        "upstream '{name}': `exchange` gives each request its `Authorization`: leave it out of `headers`"
                    ));
                }
                exchange
                    .check()
                    .map_err(|why| format!("upstream '{name}': `exchange`: {why}"))?;
            }
            if server.per_caller != Some(true)
                && (server.max_callers.is_some() || server.idle_secs.is_some())
            {
                return Err(format!(
                    "upstream '{name}': `max_callers` and `idle_secs` bound the sessions of an upstream with one per caller: add `per_caller = true`"
                ));
            }
            if server.per_caller == Some(true) && server.openapi.is_some() {
                return Err(format!(
                    "upstream '{name}' is an HTTP API: it has no session to keep per caller (`per_caller`)"
                ));
            }
            if let Some(mint) = &server.mint {
                if cfg!(not(feature = "mint")) {
                    return Err(format!(
                        "upstream '{name}': `mint` needs the gateway's `mint` feature (the `toolsmith` binary has it)"
                    ));
                }
                if server.openapi.is_some()
                    || (server.url.is_none() && server.per_caller != Some(true))
                {
                    return Err(format!(
                        "upstream '{name}': `mint` sends each caller's token to a remote server (`url`), or puts it in the environment of a server started per caller (`per_caller = true`, `${{caller.token}}`)"
                    ));
                }
                if mint.lifetime_secs == Some(0) {
                    return Err(format!(
                        "upstream '{name}': `mint.lifetime_secs` is 0: give 1 or more"
                    ));
                }
            }
            if server.max_callers == Some(0) {
                return Err(format!(
                    "upstream '{name}': `max_callers` is 0: give 1 or more"
                ));
            }
            if server.per_caller != Some(true)
                && server.env.values().any(|value| value.contains("${caller."))
            {
                return Err(format!(
                    "upstream '{name}': its `env` names the caller (`${{caller.…}}`): only an upstream started per caller has one; add `per_caller = true`"
                ));
            }
            if server
                .env
                .values()
                .any(|value| value.contains("${caller.token}"))
                && server.exchange.is_none()
                && server.mint.is_none()
            {
                return Err(format!(
                    "upstream '{name}': its `env` names `${{caller.token}}`, but no token is got for its callers: add `exchange` or `mint`"
                ));
            }
            for (what, secs) in [
                ("idle_secs", server.idle_secs),
                ("call_timeout_secs", server.call_timeout_secs),
                ("connect_timeout_secs", server.connect_timeout_secs),
                ("list_timeout_secs", server.list_timeout_secs),
                ("cache_ttl_secs", server.cache_ttl_secs),
            ] {
                if secs == Some(0) {
                    return Err(format!("upstream '{name}': `{what}` is 0: give 1 or more"));
                }
            }
        }
        Ok(config)
    }

    /// The upstreams, in name order.
    pub fn upstreams(&self) -> Vec<Upstream> {
        self.servers
            .iter()
            .map(|(name, server)| {
                let mut upstream = match (&server.openapi, &server.url) {
                    (Some(document), _) => Upstream::openapi(name, server.api(document)),
                    (None, Some(url)) => Upstream::http(name, url),
                    (None, None) => {
                        Upstream::stdio(name, server.command.clone().unwrap_or_default())
                    }
                };
                upstream = upstream.args(server.args.iter().cloned());
                for (key, value) in &server.env {
                    upstream = upstream.env(key, value);
                }
                for (key, value) in &server.headers {
                    upstream = upstream.header(key, value);
                }
                upstream = upstream
                    .include(server.include.iter().cloned())
                    .exclude(server.exclude.iter().cloned());
                if let Some(prefix) = &server.prefix {
                    upstream = upstream.prefix(prefix);
                }
                if let Some(path) = &server.ca_file {
                    upstream = upstream.ca_file(path);
                }
                if let Some(secs) = server.call_timeout_secs {
                    upstream = upstream.call_timeout(Duration::from_secs(secs));
                }
                if let Some(secs) = server.cache_ttl_secs {
                    upstream = upstream.cache(Duration::from_secs(secs));
                }
                if server.revision.as_deref() == Some("2026-07-28") {
                    upstream = upstream.discover(true);
                }
                if let Some(secs) = server.connect_timeout_secs {
                    upstream = upstream.connect_timeout(Duration::from_secs(secs));
                }
                if let Some(secs) = server.list_timeout_secs {
                    upstream = upstream.list_timeout(Duration::from_secs(secs));
                }
                if let Some(entry) = &server.exchange {
                    let mut exchange = entry.to_exchange();
                    if let Some(path) = &server.ca_file {
                        exchange = exchange.ca_file(path);
                    }
                    upstream = upstream.exchange(exchange);
                }
                #[cfg(feature = "mint")]
                if let Some(mint) = &server.mint {
                    upstream = upstream.mint(mint.config());
                }
                if server.per_caller == Some(true) {
                    let mut limits = crate::PerCaller::new();
                    if let Some(max) = server.max_callers {
                        limits = limits.max(max);
                    }
                    if let Some(secs) = server.idle_secs {
                        limits = limits.idle(Duration::from_secs(secs));
                    }
                    upstream = upstream.per_caller(limits);
                }
                #[cfg(feature = "upstream-signin")]
                if let Some(sign_in) = &server.sign_in {
                    upstream = upstream.sign_in(sign_in.config());
                }
                upstream
            })
            .collect()
    }
}

#[path = "config_keys.rs"]
mod keys;
#[path = "config_paths.rs"]
mod paths;

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
