//! A bundle's `server.json` for the MCP registry (schema 2025-12-11): the server's registry
//! name, description and version, and one `mcpb` package, the bundle at the URL it is
//! downloaded from with its SHA-256, with the environment variables a host sets.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Bundle, BundleError, Packed, Passed};

/// What to give for a `server.json` when [`Bundle::write_registry_entry`] knows no registry
/// name or download URL.
pub const NO_REGISTRY_ENTRY: &str = "no server.json: give --registry-name NAMESPACE/NAME and --url URL (where the bundle will be downloaded from), or a GitHub --repository";

/// The registry schema `server.json` follows.
pub const SERVER_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The registry keeps at most so many characters of a description.
const MAX_DESCRIPTION: usize = 100;

impl Bundle {
    /// The name the registry would list the server by, from a GitHub repository
    /// (`io.github.OWNER/NAME`); `None` for any other.
    ///
    /// ```
    /// let mut bundle = toolsmith::bundle::Bundle::new("notes", "notes", "1.0.0");
    /// assert_eq!(bundle.registry_name(), None);
    /// bundle.repository = Some("https://github.com/ada/notes-mcp".into());
    /// assert_eq!(bundle.registry_name().as_deref(), Some("io.github.ada/notes"));
    /// ```
    pub fn registry_name(&self) -> Option<String> {
        let (owner, _) = self.github()?;
        Some(format!("io.github.{owner}/{}", self.name))
    }

    /// Where a GitHub release tagged `vVERSION` would serve the bundle; `None` for a
    /// repository elsewhere.
    ///
    /// ```
    /// let mut bundle = toolsmith::bundle::Bundle::new("notes", "notes", "1.0.0");
    /// bundle.repository = Some("https://github.com/ada/notes-mcp.git".into());
    /// let url = bundle.release_url().unwrap();
    /// assert!(url.starts_with("https://github.com/ada/notes-mcp/releases/download/v1.0.0/notes-1.0.0-"));
    /// ```
    pub fn release_url(&self) -> Option<String> {
        let (owner, repo) = self.github()?;
        Some(format!(
            "https://github.com/{owner}/{repo}/releases/download/v{}/{}",
            self.version,
            self.file_name()
        ))
    }

    /// The `server.json` that lists this bundle under `name`, downloaded from `url`, whose
    /// SHA-256 is `sha256` (see [`Packed`]).
    pub fn registry_entry(
        &self,
        name: &str,
        url: &str,
        sha256: &str,
    ) -> Result<Value, BundleError> {
        let valid = name.split_once('/').is_some_and(|(space, server)| {
            let ok = |part: &str, extra: &[char]| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || extra.contains(&c))
            };
            ok(space, &['.']) && ok(server, &['.', '_'])
        });
        if !valid {
            return Err(BundleError::Incomplete(format!(
                "`{name}` is not a registry name: give one as NAMESPACE/NAME in reverse DNS, e.g. io.github.OWNER/{}",
                self.name
            )));
        }
        let variables: Vec<Value> = self
            .config
            .iter()
            .filter_map(|field| match &field.passed {
                Passed::Env(variable) => {
                    let mut entry = json!({
                        "name": variable,
                        "description": field.description,
                        "isRequired": field.required,
                        "isSecret": field.sensitive,
                        "format": "string",
                    });
                    if let Some(Value::String(default)) = &field.default
                        && !default.is_empty()
                    {
                        entry["default"] = Value::String(default.clone());
                    }
                    Some(entry)
                }
                Passed::Flag(_) => None,
            })
            .collect();
        let mut package = json!({
            "registryType": "mcpb",
            "identifier": url,
            "fileSha256": sha256,
            "transport": { "type": "stdio" },
        });
        if !variables.is_empty() {
            package["environmentVariables"] = Value::Array(variables);
        }
        let mut entry = json!({
            "$schema": SERVER_SCHEMA,
            "name": name,
            "description": shortened(&self.description),
            "version": self.version,
            "packages": [package],
        });
        if let Some(title) = &self.display_name {
            entry["title"] = Value::String(title.clone());
        }
        if let Some(url) = &self.repository {
            let source = if self.github().is_some() {
                "github"
            } else {
                "git"
            };
            entry["repository"] = json!({ "url": url.trim_end_matches(".git"), "source": source });
        }
        if let Some(url) = &self.homepage {
            entry["websiteUrl"] = Value::String(url.clone());
        }
        Ok(entry)
    }

    /// Writes the `server.json` of the bundle `packed` into `dir`, listed as `name` (else
    /// [`Bundle::registry_name`]) and downloaded from `url` (else [`Bundle::release_url`]):
    /// its path and the URL, or `None` when no name or no URL is known
    /// ([`NO_REGISTRY_ENTRY`] says what to give).
    pub fn write_registry_entry(
        &self,
        dir: &Path,
        packed: &Packed,
        name: Option<String>,
        url: Option<String>,
    ) -> Result<Option<(PathBuf, String)>, BundleError> {
        let name = name.or_else(|| self.registry_name());
        let url = url.or_else(|| self.release_url());
        let (Some(name), Some(url)) = (name, url) else {
            return Ok(None);
        };
        let entry = self.registry_entry(&name, &url, &packed.sha256)?;
        let path = dir.join("server.json");
        let io = |source| BundleError::Io {
            what: format!("writing {}", path.display()),
            source,
        };
        let text = serde_json::to_string_pretty(&entry).map_err(|err| io(err.into()))?;
        std::fs::write(&path, text + "\n").map_err(io)?;
        Ok(Some((path, url)))
    }

    /// The owner and repository of a GitHub repository URL.
    pub(super) fn github(&self) -> Option<(&str, &str)> {
        let url = self.repository.as_deref()?;
        let path = url
            .strip_prefix("https://github.com/")
            .or_else(|| url.strip_prefix("http://github.com/"))?;
        let mut parts = path.trim_end_matches('/').splitn(3, '/');
        let owner = parts.next().filter(|owner| !owner.is_empty())?;
        let repo = parts.next()?.trim_end_matches(".git");
        (!repo.is_empty()).then_some((owner, repo))
    }
}

/// `description` within the registry's limit: its first sentence when that fits, else cut at
/// a word with an ellipsis.
fn shortened(description: &str) -> String {
    let description = description.trim();
    if description.chars().count() <= MAX_DESCRIPTION {
        return description.to_owned();
    }
    let first = description
        .split_inclusive(". ")
        .next()
        .unwrap_or("")
        .trim();
    if !first.is_empty() && first.chars().count() <= MAX_DESCRIPTION {
        return first.to_owned();
    }
    let mut cut: String = description.chars().take(MAX_DESCRIPTION - 1).collect();
    if let Some(space) = cut.rfind(' ') {
        cut.truncate(space);
    }
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::shortened;
    use crate::Setting;
    use crate::bundle::{Bundle, ConfigField};

    #[test]
    fn a_long_description_is_cut_to_the_registrys_limit() {
        let long = "word ".repeat(40);
        let cut = shortened(&long);
        assert!(cut.chars().count() <= 100 && cut.ends_with('…'), "{cut}");
        let two = format!("Search notes. {}", "More. ".repeat(30));
        assert_eq!(shortened(&two), "Search notes.");
        assert_eq!(shortened(" Short. "), "Short.");
    }

    #[test]
    fn the_entry_names_the_bundle_its_hash_and_its_variables() {
        let mut bundle = Bundle::new("notes", "notes", "2.0.0");
        bundle.description = "Notes.".into();
        bundle.repository = Some("https://github.com/ada/notes.git".into());
        bundle.config = vec![
            ConfigField::flag("read_only", "Read-only", "Only read.", "--read-only"),
            ConfigField::from_setting(&Setting::new("NOTES_TOKEN", "Token", "The token.").secret()),
        ];
        let entry = bundle
            .registry_entry(
                "io.github.ada/notes",
                "https://example.com/n.mcpb",
                &"a".repeat(64),
            )
            .unwrap();
        let package = &entry["packages"][0];
        assert_eq!(package["registryType"], "mcpb");
        assert_eq!(package["identifier"], "https://example.com/n.mcpb");
        let variables = package["environmentVariables"].as_array().unwrap();
        assert_eq!(
            variables.len(),
            1,
            "flags are the manifest's, not variables"
        );
        assert_eq!(variables[0]["name"], "NOTES_TOKEN");
        assert_eq!(variables[0]["isSecret"], true);
        assert_eq!(entry["repository"]["url"], "https://github.com/ada/notes");
        assert_eq!(entry["repository"]["source"], "github");
        let err = bundle
            .registry_entry("notes", "u", "h")
            .unwrap_err()
            .to_string();
        assert!(err.contains("io.github.OWNER/notes"), "{err}");
    }
}
