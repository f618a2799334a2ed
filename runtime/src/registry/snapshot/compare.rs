//! Two snapshots compared: what `check` reports (and the headline that says what kind of
//! promise changed), and what a pin holds a tool to (its drift).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::parse::{Fields, Kind, parse, shown};

/// What a pinned tool must keep (see [`drift`]): its hints, schemas, description and title,
/// and whether its upstream says it asks the user itself.
pub(crate) const PINNED: [&str; 9] = [
    "readOnly",
    "destructive",
    "idempotent",
    "openWorld",
    "input",
    "output",
    "description",
    "title",
    // An upstream that starts saying it asks the user itself: the gateway stops asking.
    "upstreamConfirms",
];

/// A tool's hints, as its line names them.
const HINTS: [&str; 4] = ["readOnly", "destructive", "idempotent", "openWorld"];

/// What `check` says of a snapshot that is out of date.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Report {
    /// One line per tool, resource or prompt added, changed or removed.
    pub(crate) text: String,
    /// Which kind of promise changed: the hints (and only they) say "hints"; a tool's schema
    /// fingerprint only, "schemas"; anything else (a title, a confirmation, a tool, resource
    /// or prompt added or removed) names the declarations.
    pub(crate) headline: &'static str,
}

/// What changed from `committed` to `current`; `None` when nothing. An error when
/// `committed` is not a snapshot (naming its line).
pub(crate) fn diff(committed: &str, current: &str) -> Result<Option<Report>, String> {
    let old = parse(committed)?;
    let new = parse(current)
        .map_err(|why| format!("the hints as they are now make no snapshot ({why})"))?;
    let (mut hints, mut schemas, mut other) = (false, false, false);
    let mut text = String::new();
    for (key, fields) in &new {
        let name = named(key);
        let Some(before) = old.get(key) else {
            other = true;
            let _ = writeln!(text, "  added    {name}: {}", describe(fields));
            continue;
        };
        let changed = changes(before, fields);
        if changed.is_empty() {
            continue;
        }
        for (field, _) in &changed {
            match (key.0, *field) {
                (Kind::Tool, field) if HINTS.contains(&field) => hints = true,
                (Kind::Tool, "input" | "output") => schemas = true,
                _ => other = true,
            }
        }
        let said: Vec<&str> = changed.iter().map(|(_, said)| said.as_str()).collect();
        let _ = writeln!(text, "  changed  {name}: {}", said.join(", "));
    }
    for key in old.keys().filter(|key| !new.contains_key(*key)) {
        other = true;
        let _ = writeln!(text, "  removed  {}", named(key));
    }
    let headline = match (hints, schemas, other) {
        (true, false, false) => "the tools' hints changed",
        (false, true, false) => "the tools' schemas changed",
        (true, true, false) => "the tools' hints and schemas changed",
        _ => "the declared tools, resources or prompts changed",
    };
    Ok((!text.is_empty()).then_some(Report { text, headline }))
}

/// Each field that differs from `before` to `now`, with what a report says of it: a schema
/// by its side, the description by its name, anything else with both values.
fn changes(before: &Fields, now: &Fields) -> Vec<(&'static str, String)> {
    let value = |fields: &Fields, key: &str| {
        fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    };
    let mut changed: Vec<(&'static str, String)> = now
        .iter()
        .filter_map(|(key, is)| {
            let was = value(before, key);
            (was.as_ref() != Some(is)).then(|| {
                let said = match *key {
                    "input" | "output" => format!("{key} schema"),
                    "description" => "description".to_owned(),
                    _ => format!("{key} {} -> {is}", was.as_deref().unwrap_or("(none)")),
                };
                (*key, said)
            })
        })
        .collect();
    // A field it no longer has (`task` when it stopped being one).
    changed.extend(
        before
            .iter()
            .filter(|(key, _)| value(now, key).is_none())
            .map(|(key, was)| (*key, format!("{key} {was} -> (none)"))),
    );
    changed
}

/// The tools of `current` that differ from their line in `pinned` in what a pin keeps (hints,
/// schemas, description, title), each with what changed; a tool `pinned` does not list is
/// one too ("not in the snapshot"). Resources and prompts are not tools: left alone. An
/// error when `pinned` is not a snapshot (naming its line).
pub(crate) fn drift(pinned: &str, current: &str) -> Result<BTreeMap<String, String>, String> {
    let old = parse(pinned)?;
    let new = parse(current)
        .map_err(|why| format!("the tools as they are now make no snapshot ({why})"))?;
    let mut drifted = BTreeMap::new();
    let kept = |fields: &Fields, key: &str| -> Option<String> {
        fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    };
    for ((kind, name), fields) in &new {
        if *kind != Kind::Tool {
            continue;
        }
        let Some(before) = old.get(&(Kind::Tool, name.clone())) else {
            drifted.insert(name.clone(), "not in the snapshot".to_owned());
            continue;
        };
        let changed: Vec<&str> = PINNED
            .iter()
            .copied()
            .filter(|key| kept(before, key) != kept(fields, key))
            .map(|key| match key {
                "input" => "input schema",
                "output" => "output schema",
                other => other,
            })
            .collect();
        if !changed.is_empty() {
            drifted.insert(name.clone(), changed.join(", "));
        }
    }
    Ok(drifted)
}

/// How a report names an entry: a tool by its name, a resource as `resource:URI`, a prompt
/// as `prompt:NAME` (quoted when it holds a character a snapshot escapes).
fn named((kind, name): &(Kind, String)) -> String {
    match kind {
        Kind::Tool => shown(name),
        Kind::Resource | Kind::Prompt => format!("{}:{}", kind.word(), shown(name)),
    }
}

fn describe(fields: &Fields) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}
