//! Reading a configuration file in either of its forms.

use std::path::Path;

/// The file at `path` read by `toml` when its name ends in `.toml`, else by `json`; an error
/// says what is wrong, and where.
pub(crate) fn read<T>(
    path: &Path,
    toml: fn(&str) -> Result<T, String>,
    json: fn(&str) -> Result<T, String>,
) -> Result<T, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let parsed = match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => toml(&text),
        _ => json(&text),
    };
    parsed.map_err(|why| format!("{}: {why}", path.display()))
}
