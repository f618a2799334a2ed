//! Keys a configuration file holds that the gateway does not read. Claude Desktop's
//! `claude_desktop_config.json` is taken as it is: its other top-level keys
//! (`globalShortcut`, `preferences`, ...) and a server entry's keys of other programs are
//! left out, named in one log line. In TOML, the gateway's own format, such a key is a
//! mistake (`per_calller`): an error naming it and the keys there are.

use super::{Config, Format};

/// The keys of a server entry, as [`Server`](super::Server) reads them.
pub(super) const SERVER_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "type",
    "url",
    "headers",
    "prefix",
    "include",
    "exclude",
    "ca_file",
    "call_timeout_secs",
    "connect_timeout_secs",
    "list_timeout_secs",
    "cache_ttl_secs",
    "revision",
    "mint",
    "per_caller",
    "max_callers",
    "idle_secs",
    "openapi",
    "base_url",
    "credentials",
    "tags",
    "methods",
    "paths",
    "deprecated",
    "open_world",
    "max_answer_bytes",
    "max_document_bytes",
    "allow_cross_origin_servers",
    "exchange",
    "sign_in",
];

/// `keys` as a list to read: `` `a`, `b` ``.
fn listed<'k>(keys: impl IntoIterator<Item = &'k str>) -> String {
    keys.into_iter()
        .map(|key| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "unknown key", or "unknown keys" for more than one.
fn unknown(count: usize) -> &'static str {
    match count {
        1 => "unknown key",
        _ => "unknown keys",
    }
}

impl Config {
    /// The keys of `config` the gateway does not read: logged (JSON), or an error (TOML).
    pub(super) fn unknown_keys(&self, format: Format) -> Result<(), String> {
        if !self.other.is_empty() {
            let keys = listed(self.other.keys().map(String::as_str));
            match format {
                Format::Json => tracing::info!(
                    "left out of the configuration, as the gateway reads `mcpServers` only: {keys}"
                ),
                Format::Toml => {
                    return Err(format!(
                        "{} {keys}: the gateway reads `servers` (or `mcpServers`) only",
                        unknown(self.other.len())
                    ));
                }
            }
        }
        for (name, server) in &self.servers {
            if server.unknown.is_empty() {
                continue;
            }
            let keys = listed(server.unknown.keys().map(String::as_str));
            match format {
                Format::Json => tracing::warn!(
                    upstream = %name,
                    "upstream '{name}': left out, as the gateway does not read them: {keys}"
                ),
                Format::Toml => {
                    return Err(format!(
                        "upstream '{name}': {} {keys}: the keys of an entry are {}",
                        unknown(server.unknown.len()),
                        listed(SERVER_KEYS.iter().copied())
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Server;
    use super::*;

    /// Each key listed is one an entry reads: a value of no key's type is refused, where a
    /// key no entry reads would be taken among the unknown ones.
    #[test]
    fn the_keys_listed_are_the_keys_read() {
        for key in SERVER_KEYS {
            let entry = serde_json::json!({ *key: [[[]]] });
            assert!(
                serde_json::from_value::<Server>(entry).is_err(),
                "`{key}` is not read"
            );
        }
    }
}
