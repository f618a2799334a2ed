//! The hint snapshot behind `check`: one line per tool, then one per resource (or template)
//! and per prompt, diff-friendly, so that a hint, a title, a URI, a scope or a schema never
//! changes unreviewed. Schemas are fingerprinted: a short hash of
//! their canonical JSON (keys sorted), the same on every machine and in every run.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::Value;

use crate::tool::canonical;
use crate::{PromptInfo, ResourceInfo, ScopeNames, ToolInfo};

const HEADER: &str = "# toolsmith hint snapshot: one tool per line (name, hints, whether the user confirms each call, required scopes, schema fingerprints, title), then one per resource (`resource:URI`) and prompt (`prompt:NAME`).\n";

/// The snapshot of `tools`, whose required scopes are named by `names`; `confirms` says
/// whether a tool asks the user before every call (the server's confirmation policy).
pub(crate) fn render(
    tools: &[&ToolInfo],
    names: &ScopeNames,
    confirms: &dyn Fn(&ToolInfo) -> bool,
) -> String {
    let mut out = String::from(HEADER);
    for tool in tools {
        out.push_str(&line(tool, names, confirms(tool)));
        out.push('\n');
    }
    out
}

/// The snapshot lines of resources and prompts, to follow the tools'.
pub(crate) fn render_items(
    resources: &[ResourceInfo],
    prompts: &[PromptInfo],
    names: &ScopeNames,
) -> String {
    let mut out = String::new();
    for resource in resources {
        let mut line = format!(
            "resource:{} name={} template={}",
            resource.uri(),
            resource.name(),
            resource.is_template()
        );
        let _ = write!(line, " mime={}", resource.mime_type().unwrap_or("none"));
        if !resource.audience().is_empty() {
            let _ = write!(line, " audience={}", resource.audience().join(","));
        }
        if let Some(priority) = resource.priority() {
            let _ = write!(line, " priority={priority}");
        }
        let _ = write!(
            line,
            " scopes={} input={}",
            names
                .required_for(resource.header().scopes())
                .scopes()
                .join(","),
            fingerprint(resource.input_schema())
        );
        if let Some(title) = resource.header().title() {
            let _ = write!(line, " title={}", Value::from(title));
        }
        out.push_str(&line);
        out.push('\n');
    }
    for prompt in prompts {
        let mut line = format!(
            "prompt:{} scopes={} input={}",
            prompt.name(),
            names
                .required_for(prompt.header().scopes())
                .scopes()
                .join(","),
            fingerprint(prompt.arguments_schema())
        );
        if let Some(title) = prompt.header().title() {
            let _ = write!(line, " title={}", Value::from(title));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn line(tool: &ToolInfo, names: &ScopeNames, confirms: bool) -> String {
    let h = tool.hints();
    let mut line = format!(
        "{} readOnly={} destructive={} idempotent={} openWorld={}",
        tool.name(),
        h.read_only,
        h.destructive,
        h.idempotent,
        h.open_world
    );
    let _ = write!(line, " confirm={confirms}");
    // Only for a tool that runs as a task: a snapshot written before tasks stays current.
    if tool.task() != crate::TaskSupport::Never {
        let _ = write!(line, " task={}", tool.task().as_str());
    }
    // Scope tokens hold no comma or space (the macro checks).
    let _ = write!(line, " scopes={}", names.required(tool).scopes().join(","));
    let mcp = tool.mcp_tool();
    let _ = write!(
        line,
        " input={} output={}",
        fingerprint(&mcp.input_schema),
        mcp.output_schema
            .as_ref()
            .map_or_else(|| "none".to_owned(), |schema| fingerprint(schema))
    );
    if let Some(title) = tool.header().title() {
        let _ = write!(line, " title={}", Value::from(title));
    }
    line
}

/// A short, stable hash of `schema`: FNV-1a (64 bits) over its canonical JSON (every
/// object's keys sorted), as 12 hex digits.
fn fingerprint(schema: &serde_json::Map<String, Value>) -> String {
    let mut json = Vec::new();
    canonical::write_object(schema, &mut json);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in json {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:012x}", hash >> 16)
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
            Some(before) if !before.iter().any(|(k, _)| *k == "input") => {
                let _ = writeln!(report, "  no fingerprint  {name}: run check --write");
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
                    .map(|(key, was, now)| match *key {
                        "input" | "output" => format!("{key} schema"),
                        _ => format!("{key} {was} -> {now}"),
                    })
                    // A field the tool no longer has (`task` when it stopped being one).
                    .chain(
                        before
                            .iter()
                            .filter(|(k, _)| !fields.iter().any(|(key, _)| key == k))
                            .map(|(key, was)| format!("{key} {was} -> (none)")),
                    )
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

/// The first line of a report of [`diff`]: which kind of promise changed. The hints (and only
/// they) say "hints"; a schema fingerprint only, "schemas"; anything else (a title, a
/// confirmation, a tool, resource or prompt added or removed) names the declarations.
pub(crate) fn headline(report: &str) -> &'static str {
    const HINTS: [&str; 4] = ["readOnly", "destructive", "idempotent", "openWorld"];
    let (mut hints, mut schemas, mut other) = (false, false, false);
    for line in report.lines() {
        let Some(changes) = line.trim_start().strip_prefix("changed") else {
            other = true;
            continue;
        };
        let changes = changes.split_once(": ").map_or("", |(_, c)| c);
        for key in changes
            .split(", ")
            .filter_map(|c| c.split_whitespace().next())
        {
            match key {
                k if HINTS.contains(&k) => hints = true,
                "input" | "output" => schemas = true,
                _ => other = true,
            }
        }
    }
    match (hints, schemas, other) {
        (true, false, false) => "the tools' hints changed",
        (false, true, false) => "the tools' schemas changed",
        (true, true, false) => "the tools' hints and schemas changed",
        _ => "the declared tools, resources or prompts changed",
    }
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
        delete_note readOnly=false destructive=true idempotent=true openWorld=false input=0123456789ab output=none title=\"Delete note\"\n\
        get_note readOnly=true destructive=false idempotent=true openWorld=false input=ba9876543210 output=00000000abcd title=\"Get note\"\n";

    #[test]
    fn the_headline_names_what_kind_of_promise_changed() {
        let hints = SNAPSHOT.replace(
            "destructive=true idempotent=true",
            "destructive=false idempotent=true",
        );
        assert_eq!(
            headline(&diff(SNAPSHOT, &hints).unwrap()),
            "the tools' hints changed"
        );
        let output = SNAPSHOT.replace("output=00000000abcd", "output=00000000ffff");
        assert_eq!(
            headline(&diff(SNAPSHOT, &output).unwrap()),
            "the tools' schemas changed"
        );
        let both = hints.replace("output=00000000abcd", "output=00000000ffff");
        assert_eq!(
            headline(&diff(SNAPSHOT, &both).unwrap()),
            "the tools' hints and schemas changed"
        );
        let title = SNAPSHOT.replace("title=\"Get note\"", "title=\"Fetch note\"");
        assert_eq!(
            headline(&diff(SNAPSHOT, &title).unwrap()),
            "the declared tools, resources or prompts changed"
        );
    }

    #[test]
    fn unchanged_snapshots_have_no_diff() {
        assert_eq!(diff(SNAPSHOT, SNAPSHOT), None);
        let reordered: String = SNAPSHOT.lines().rev().map(|l| format!("{l}\n")).collect();
        assert_eq!(diff(SNAPSHOT, &reordered), None);
    }

    #[test]
    fn a_tool_that_becomes_a_task_or_stops_being_one_is_a_change() {
        let task = SNAPSHOT.replace(
            "openWorld=false input=0123",
            "openWorld=false task=optional input=0123",
        );
        assert_eq!(
            diff(SNAPSHOT, &task).unwrap(),
            "  changed  delete_note: task (none) -> optional\n"
        );
        assert_eq!(
            diff(&task, SNAPSHOT).unwrap(),
            "  changed  delete_note: task optional -> (none)\n"
        );
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
            "{SNAPSHOT}list_notes readOnly=true destructive=false idempotent=true openWorld=true input=1 output=none\n"
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

    #[test]
    fn a_schema_change_is_named_by_its_side() {
        let changed = SNAPSHOT.replace("input=ba9876543210", "input=ba9876543211");
        assert_eq!(
            diff(SNAPSHOT, &changed).unwrap(),
            "  changed  get_note: input schema\n"
        );
        let changed = SNAPSHOT.replace("output=00000000abcd", "output=none");
        assert_eq!(
            diff(SNAPSHOT, &changed).unwrap(),
            "  changed  get_note: output schema\n"
        );
    }

    #[test]
    fn a_snapshot_from_before_fingerprints_still_parses() {
        let old = "delete_note readOnly=false destructive=true idempotent=true openWorld=false title=\"Delete note\"\n";
        let report = diff(old, SNAPSHOT).unwrap();
        assert!(
            report.contains("no fingerprint  delete_note: run check --write"),
            "{report}"
        );
        assert!(report.contains("added    get_note"), "{report}");
    }

    #[test]
    fn fingerprints_ignore_key_order_and_see_any_change() {
        let a = serde_json::json!({"type": "object", "properties": {"x": {"type": "integer"}, "y": {}}});
        let b = serde_json::json!({"properties": {"y": {}, "x": {"type": "integer"}}, "type": "object"});
        let c =
            serde_json::json!({"type": "object", "properties": {"x": {"type": "number"}, "y": {}}});
        let fingerprint = |schema: &serde_json::Value| fingerprint(schema.as_object().unwrap());
        assert_eq!(fingerprint(&a), fingerprint(&b));
        assert_ne!(fingerprint(&a), fingerprint(&c));
        assert_eq!(fingerprint(&a).len(), 12);
    }
}
