//! The hint snapshot behind `check`: one line per tool, diff-friendly, so that a hint never
//! changes unreviewed.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::ToolInfo;

const HEADER: &str = "# toolsmith hint snapshot: one tool per line (name, hints, title).\n";

/// The snapshot of `tools`.
pub(crate) fn render(tools: &[ToolInfo]) -> String {
    let mut out = String::from(HEADER);
    for tool in tools {
        out.push_str(&line(tool));
        out.push('\n');
    }
    out
}

fn line(tool: &ToolInfo) -> String {
    let h = tool.hints();
    let mut line = format!(
        "{} readOnly={} destructive={} idempotent={} openWorld={}",
        tool.name(),
        h.read_only,
        h.destructive,
        h.idempotent,
        h.open_world
    );
    if let Some(title) = tool.title() {
        let _ = write!(line, " title={}", serde_json::Value::from(title));
    }
    line
}

/// The fields of a snapshot line, by tool name.
fn parse(text: &str) -> BTreeMap<&str, Vec<(&str, &str)>> {
    let mut tools = BTreeMap::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (name, rest) = line.split_once(' ').unwrap_or((line, ""));
        let (flags, title) = match rest
            .split_once(" title=")
            .or_else(|| rest.strip_prefix("title=").map(|t| ("", t)))
        {
            Some((flags, title)) => (flags, Some(title)),
            None => (rest, None),
        };
        let mut fields: Vec<(&str, &str)> = flags
            .split_whitespace()
            .map(|f| f.split_once('=').unwrap_or((f, "")))
            .collect();
        fields.push(("title", title.unwrap_or("(none)")));
        tools.insert(name, fields);
    }
    tools
}

/// What changed from `committed` to `current`, one paragraph per tool; `None` when nothing.
pub(crate) fn diff(committed: &str, current: &str) -> Option<String> {
    let (old, new) = (parse(committed), parse(current));
    let mut report = String::new();
    for (name, fields) in &new {
        match old.get(name) {
            None => {
                let _ = writeln!(report, "  added    {name}: {}", describe(fields));
            }
            Some(before) if before != fields => {
                let changes: Vec<String> = fields
                    .iter()
                    .map(|(key, value)| {
                        let was = before
                            .iter()
                            .find(|(k, _)| k == key)
                            .map_or("(none)", |f| f.1);
                        (key, was, value)
                    })
                    .filter(|(_, was, now)| was != *now)
                    .map(|(key, was, now)| format!("{key} {was} -> {now}"))
                    .collect();
                let _ = writeln!(report, "  changed  {name}: {}", changes.join(", "));
            }
            Some(_) => {}
        }
    }
    for name in old.keys().filter(|name| !new.contains_key(*name)) {
        let _ = writeln!(report, "  removed  {name}");
    }
    (!report.is_empty()).then_some(report)
}

fn describe(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAPSHOT: &str = "# header\n\
        delete_note readOnly=false destructive=true idempotent=true openWorld=false title=\"Delete note\"\n\
        get_note readOnly=true destructive=false idempotent=true openWorld=false title=\"Get note\"\n";

    #[test]
    fn unchanged_snapshots_have_no_diff() {
        assert_eq!(diff(SNAPSHOT, SNAPSHOT), None);
        let reordered: String = SNAPSHOT.lines().rev().map(|l| format!("{l}\n")).collect();
        assert_eq!(diff(SNAPSHOT, &reordered), None);
    }

    #[test]
    fn changes_name_the_tool_and_the_field() {
        let changed = SNAPSHOT.replace("destructive=true", "destructive=false");
        let report = diff(SNAPSHOT, &changed).unwrap();
        assert_eq!(
            report,
            "  changed  delete_note: destructive true -> false\n"
        );
        let renamed = SNAPSHOT.replace("\"Get note\"", "\"Fetch note\"");
        assert!(
            diff(SNAPSHOT, &renamed)
                .unwrap()
                .contains("title \"Get note\" -> \"Fetch note\"")
        );
        let added = format!(
            "{SNAPSHOT}list_notes readOnly=true destructive=false idempotent=true openWorld=true\n"
        );
        assert!(
            diff(SNAPSHOT, &added)
                .unwrap()
                .contains("added    list_notes")
        );
        assert!(
            diff(&added, SNAPSHOT)
                .unwrap()
                .contains("removed  list_notes")
        );
    }
}
