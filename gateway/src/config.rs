//! The upstreams of a gateway, from a file: Claude Desktop's `claude_desktop_config.json` as it
//! is (`mcpServers`), or TOML in the same shape (`[servers.NAME]`).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use crate::Upstream;

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
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(rename = "mcpServers", alias = "servers")]
    servers: BTreeMap<String, Server>,
}

/// One upstream's entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Server {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Claude Desktop's remote entries (`"type": "http"`, `"url"`).
    #[serde(rename = "type")]
    kind: Option<String>,
    url: Option<String>,
    prefix: Option<String>,
    call_timeout_secs: Option<u64>,
    connect_timeout_secs: Option<u64>,
}

impl Config {
    /// Reads `path`: TOML when its name ends in `.toml`, else JSON. An error says what is
    /// wrong, and where.
    pub fn from_path(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        let parsed = match path.extension().and_then(|e| e.to_str()) {
            Some("toml") => Config::from_toml(&text),
            _ => Config::from_json(&text),
        };
        parsed.map_err(|why| format!("{}: {why}", path.display()))
    }

    /// Claude Desktop's JSON (`{"mcpServers": {...}}`).
    pub fn from_json(text: &str) -> Result<Config, String> {
        Config::checked(serde_json::from_str(text).map_err(|err| err.to_string())?)
    }

    /// TOML (`[servers.NAME]`, or `[mcpServers.NAME]`).
    pub fn from_toml(text: &str) -> Result<Config, String> {
        Config::checked(toml::from_str(text).map_err(|err| err.to_string())?)
    }

    fn checked(config: Config) -> Result<Config, String> {
        if config.servers.is_empty() {
            return Err("no upstream: name at least one under `mcpServers`".into());
        }
        for (name, server) in &config.servers {
            if server.url.is_some() || server.kind.as_deref().is_some_and(|k| k != "stdio") {
                return Err(format!(
                    "upstream '{name}' is a remote server: this gateway starts stdio servers only (give `command`)"
                ));
            }
            if server.command.as_deref().is_none_or(str::is_empty) {
                return Err(format!(
                    "upstream '{name}' has no `command`: give the program to start"
                ));
            }
            for (what, secs) in [
                ("call_timeout_secs", server.call_timeout_secs),
                ("connect_timeout_secs", server.connect_timeout_secs),
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
                let mut upstream =
                    Upstream::stdio(name, server.command.clone().unwrap_or_default())
                        .args(server.args.iter().cloned());
                for (key, value) in &server.env {
                    upstream = upstream.env(key, value);
                }
                if let Some(prefix) = &server.prefix {
                    upstream = upstream.prefix(prefix);
                }
                if let Some(secs) = server.call_timeout_secs {
                    upstream = upstream.call_timeout(Duration::from_secs(secs));
                }
                if let Some(secs) = server.connect_timeout_secs {
                    upstream = upstream.connect_timeout(Duration::from_secs(secs));
                }
                upstream
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_file_says_what_is_wrong() {
        let err = Config::from_json(r#"{"mcpServers": {}}"#).unwrap_err();
        assert!(err.contains("no upstream"), "{err}");
        let err =
            Config::from_json(r#"{"mcpServers": {"x": {"url": "https://a/mcp"}}}"#).unwrap_err();
        assert!(err.contains("remote server"), "{err}");
        let err = Config::from_json(r#"{"mcpServers": {"x": {"args": []}}}"#).unwrap_err();
        assert!(err.contains("no `command`"), "{err}");
        let err = Config::from_toml("[servers.x]\ncommand = \"a\"\ncomand = \"b\"\n").unwrap_err();
        assert!(err.contains("comand"), "{err}");
        let err =
            Config::from_toml("[servers.x]\ncommand = \"a\"\ncall_timeout_secs = 0\n").unwrap_err();
        assert!(err.contains("call_timeout_secs"), "{err}");
    }
}
