//! Corrections to what upstream tools say of themselves, from a file: hints, title, tags,
//! scopes, a confirmation question and whether the upstream confirms, a new name and
//! description, and its arguments reshaped (`reshape.rs`), per tool or by glob over the names
//! they are served under. A hint neither the upstream nor an override states takes the specification's
//! cautious default, as in `#[tool]`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use crate::reshape::ArgumentOverride;

/// The overrides a file gives (`[tools."GLOB"]` tables in TOML, or `{"tools": {"GLOB": {...}}}`
/// in JSON), keyed by the names tools are served under (the prefix included); `*` and `?` are
/// wildcards. A tool several entries match gets all of them, the more specific (more literal
/// characters) winning a key both set: an exact name beats `notes_*`, which beats `*`.
///
/// ```
/// let overrides = toolsmith_gateway::Overrides::from_toml(r#"
///     [tools."*"]
///     open_world = false
///
///     [tools."notes_delete_*"]
///     destructive = true
///     idempotent = true
///     confirm = "Delete note {note_id}?"
///
///     [tools.notes_search]
///     read_only = true
///     title = "Search notes"
///     tags = ["notes"]
///     scopes = ["notes:read"]
/// "#).unwrap();
/// assert_eq!(overrides.len(), 3);
/// // An entry that matches no tool is worth a warning (a typo, or a tool the upstream dropped).
/// assert_eq!(overrides.unmatched(["notes_search", "notes_delete_note"]), Vec::<String>::new());
/// assert_eq!(overrides.unmatched(["notes_get_note"]), ["notes_delete_*", "notes_search"]);
///
/// // A contradiction is refused, naming the entry.
/// let err = toolsmith_gateway::Overrides::from_toml(
///     "[tools.x]\nread_only = true\ndestructive = true\n",
/// ).unwrap_err();
/// assert!(err.contains("'x'"), "{err}");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// The entries, least specific first.
    entries: Arc<Vec<(String, glob::Pattern, Override)>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    tools: BTreeMap<String, Override>,
}

/// What one entry sets; unset keys leave the upstream's (or a less specific entry's) word.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Override {
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) title: Option<String>,
    pub(crate) tags: Option<Vec<String>>,
    pub(crate) scopes: Option<Vec<String>>,
    pub(crate) confirm: Option<Confirmation>,
    /// Whether the upstream asks the user before every call itself, in place of what its
    /// listing says (`_meta` `dev.toolsmith/confirms`).
    pub(crate) upstream_confirms: Option<bool>,
    /// The name it is served under instead (an exact entry only).
    pub(crate) name: Option<String>,
    /// The description the client reads instead.
    pub(crate) description: Option<String>,
    /// Its arguments reshaped, by the upstream's names (`reshape.rs`).
    pub(crate) arguments: Option<BTreeMap<String, ArgumentOverride>>,
    /// Listed, found and callable only for the callers it admits (a per-caller view:
    /// groups, email domains, claims of the caller's token).
    pub(crate) only_for: Option<toolsmith::tool::Audience>,
}

/// `confirm = true` (ask with the default question), `false`, or the question itself.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub(crate) enum Confirmation {
    Ask(bool),
    Question(String),
}

impl Override {
    /// `self` with every key `later` sets taken from it.
    fn then(mut self, later: &Override) -> Override {
        fn take<T: Clone>(mine: &mut Option<T>, theirs: &Option<T>) {
            if theirs.is_some() {
                mine.clone_from(theirs);
            }
        }
        take(&mut self.read_only, &later.read_only);
        take(&mut self.destructive, &later.destructive);
        take(&mut self.idempotent, &later.idempotent);
        take(&mut self.open_world, &later.open_world);
        take(&mut self.title, &later.title);
        take(&mut self.tags, &later.tags);
        take(&mut self.scopes, &later.scopes);
        take(&mut self.confirm, &later.confirm);
        take(&mut self.upstream_confirms, &later.upstream_confirms);
        take(&mut self.name, &later.name);
        take(&mut self.description, &later.description);
        take(&mut self.only_for, &later.only_for);
        // Arguments merge one by one, the later entry's word winning for an argument both
        // name.
        if let Some(later) = &later.arguments {
            let mine = self.arguments.get_or_insert_with(BTreeMap::new);
            for (name, changes) in later {
                mine.insert(name.clone(), changes.clone());
            }
        }
        self
    }
}

impl Overrides {
    /// No overrides: every tool as its upstream describes it.
    pub fn new() -> Overrides {
        Overrides::default()
    }

    /// Reads `path`: TOML when its name ends in `.toml`, else JSON. An error says what is
    /// wrong, and where.
    pub fn from_path(path: &Path) -> Result<Overrides, String> {
        crate::file::read(path, Overrides::from_toml, Overrides::from_json)
    }

    /// TOML: `[tools."GLOB"]` tables.
    pub fn from_toml(text: &str) -> Result<Overrides, String> {
        Overrides::checked(toml::from_str(text).map_err(|err| err.to_string())?)
    }

    /// JSON: `{"tools": {"GLOB": {...}}}`.
    pub fn from_json(text: &str) -> Result<Overrides, String> {
        Overrides::checked(serde_json::from_str(text).map_err(|err| err.to_string())?)
    }

    fn checked(file: File) -> Result<Overrides, String> {
        let mut entries = Vec::with_capacity(file.tools.len());
        for (key, entry) in file.tools {
            let pattern = glob::Pattern::new(&key)
                .map_err(|err| format!("the tool pattern '{key}' is not a glob: {err}"))?;
            if entry.read_only == Some(true) && entry.destructive == Some(true) {
                return Err(format!(
                    "'{key}': a read-only tool cannot be destructive: drop `read_only` or `destructive`"
                ));
            }
            if let Some(Confirmation::Question(question)) = &entry.confirm
                && question.trim().is_empty()
            {
                return Err(format!(
                    "'{key}': `confirm` is empty: give the question, or true for the default one"
                ));
            }
            if entry.name.is_some() && key.contains(['*', '?', '[']) {
                return Err(format!(
                    "'{key}': `name` renames one tool: give it in the entry of that tool's exact name, not a pattern"
                ));
            }
            for scope in entry.scopes.iter().flatten() {
                if scope.is_empty() || scope.contains([' ', ',']) {
                    return Err(format!(
                        "'{key}': the scope {scope:?} is not an OAuth scope token: no spaces or commas"
                    ));
                }
            }
            entries.push((key, pattern, entry));
        }
        entries.sort_by_key(|(key, _, _)| key.chars().filter(|c| !"*?[]".contains(*c)).count());
        Ok(Overrides {
            entries: Arc::new(entries),
        })
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries (as written) that match none of `served`, the names tools are served
    /// under.
    pub fn unmatched<'a>(&self, served: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let served: Vec<&str> = served.into_iter().collect();
        let mut unmatched: Vec<String> = self
            .entries
            .iter()
            // An entry that renames its tool is matched by the new name too.
            .filter(|(_, pattern, entry)| {
                !served
                    .iter()
                    .any(|name| pattern.matches(name) || entry.name.as_deref() == Some(*name))
            })
            .map(|(key, _, _)| key.clone())
            .collect();
        unmatched.sort();
        unmatched
    }

    /// What every entry matching `served` sets, the more specific winning.
    pub(crate) fn for_tool(&self, served: &str) -> Override {
        self.entries
            .iter()
            .filter(|(_, pattern, _)| pattern.matches(served))
            .fold(Override::default(), |merged, (_, _, entry)| {
                merged.then(entry)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_more_specific_entry_wins_a_key_both_set() {
        let overrides = Overrides::from_json(
            r#"{"tools": {
                "notes_get_note": {"open_world": true, "title": "Get"},
                "*": {"open_world": false, "idempotent": true},
                "notes_*": {"open_world": false, "tags": ["notes"]}
            }}"#,
        )
        .unwrap();
        let get = overrides.for_tool("notes_get_note");
        assert_eq!(get.open_world, Some(true));
        assert_eq!(get.idempotent, Some(true));
        assert_eq!(get.tags.as_deref(), Some(&["notes".to_owned()][..]));
        assert_eq!(get.title.as_deref(), Some("Get"));
        let other = overrides.for_tool("github_create_issue");
        assert_eq!(other.open_world, Some(false));
        assert_eq!(other.tags, None);
        assert_eq!(Overrides::new().for_tool("x"), Override::default());
    }

    #[test]
    fn wrong_entries_say_what_to_change() {
        let err = Overrides::from_toml("[tools.x]\nreadonly = true\n").unwrap_err();
        assert!(err.contains("readonly"), "{err}");
        let err = Overrides::from_toml("[tools.\"[x\"]\nread_only = true\n").unwrap_err();
        assert!(err.contains("not a glob"), "{err}");
        let err = Overrides::from_toml("[tools.x]\nconfirm = \" \"\n").unwrap_err();
        assert!(err.contains("`confirm` is empty"), "{err}");
        let err = Overrides::from_toml("[tools.x]\nscopes = [\"a b\"]\n").unwrap_err();
        assert!(err.contains("not an OAuth scope"), "{err}");
        // An entry that renames its tool matches by its new name as served.
        let renamed = Overrides::from_toml("[tools.notes_search]\nname = \"find\"\n").unwrap();
        assert!(renamed.unmatched(["find"]).is_empty());
        let ok = Overrides::from_toml("[tools.x]\nconfirm = true\n").unwrap();
        assert_eq!(ok.for_tool("x").confirm, Some(Confirmation::Ask(true)));
    }
}
