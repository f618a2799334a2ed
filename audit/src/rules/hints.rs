//! The hints: stated, consistent, agreeing with the name, and not stamped on every tool.

use std::collections::HashMap;

use serde_json::Value;
use toolsmith_infer::{Implied, Mismatch};

use crate::finding::Finding;

/// Name tokens that mean the tool writes (besides the destructive verbs of toolsmith-infer).
const WRITE_VERBS: &[&str] = &[
    "create", "add", "update", "set", "write", "edit", "modify", "insert", "put", "post", "save",
    "send", "upload", "move", "rename", "append", "replace", "patch", "upsert",
];

/// The four hints as the wire states them (`None`: not stated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Stated {
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
}

fn stated(tool: &Value) -> Stated {
    let hint = |key: &str| tool.get("annotations")?.get(key)?.as_bool();
    Stated {
        read_only: hint("readOnlyHint"),
        destructive: hint("destructiveHint"),
        idempotent: hint("idempotentHint"),
        open_world: hint("openWorldHint"),
    }
}

pub(super) fn check(name: &str, tool: &Value, findings: &mut Vec<Finding>) {
    let hints = stated(tool);
    let tool_name = Some(name);
    match (hints.read_only, hints.destructive) {
        (None, None) => findings.push(Finding::new(
            "hints-missing",
            tool_name,
            "no readOnlyHint and no destructiveHint: clients take it for a destructive tool and ask before every call",
            "state both in `annotations`: readOnlyHint (true if it only reads) and destructiveHint (true if it deletes or overwrites)",
        )),
        (None, Some(_)) => findings.push(Finding::new(
            "hints-incomplete",
            tool_name,
            "readOnlyHint is not stated (clients assume false)",
            "state `readOnlyHint` in `annotations`: true if the tool only reads, else false",
        )),
        (Some(true), None) => findings.push(Finding::new(
            "hints-incomplete",
            tool_name,
            "destructiveHint is not stated: the specification ignores it on a read-only tool, but directory reviews want both hints",
            "add `destructiveHint: false` to `annotations`",
        )),
        (Some(false), None) => findings.push(Finding::new(
            "hints-incomplete",
            tool_name,
            "destructiveHint is not stated (clients assume true)",
            "state `destructiveHint` in `annotations`: true if the tool deletes or overwrites, else false",
        )),
        (Some(_), Some(_)) => {}
    }
    if hints.read_only == Some(true) && hints.destructive == Some(true) {
        findings.push(Finding::new(
            "hints-contradictory",
            tool_name,
            "readOnlyHint and destructiveHint are both true: a read-only tool changes nothing, so it cannot be destructive",
            "set the one that is false: destructiveHint: false if it only reads, else readOnlyHint: false",
        ));
    }
    // What a client acts on: the stated hints, else the specification's defaults.
    let read_only = hints.read_only.unwrap_or(false);
    let destructive = hints.destructive.unwrap_or(true);
    match toolsmith_infer::mismatch(name, read_only, destructive) {
        Some(Mismatch::DestructiveNameReadOnly(verb)) => findings.push(Finding::new(
            "verb-destructive",
            tool_name,
            format!("`{verb}` in the name, but readOnlyHint is true: clients may run it without asking"),
            "set readOnlyHint: false and destructiveHint: true, or rename the tool if it does not delete",
        )),
        Some(Mismatch::DestructiveNameNotDestructive(verb)) => findings.push(Finding::new(
            "verb-destructive",
            tool_name,
            format!("`{verb}` in the name, but destructiveHint is false: clients may skip the confirmation a deletion needs"),
            "set destructiveHint: true, or rename the tool if it does not delete or overwrite",
        )),
        Some(Mismatch::ReadNameNotReadOnly(verb)) => findings.push(Finding::new(
            "verb-read",
            tool_name,
            format!("`{verb}` in the name, but readOnlyHint is not true: clients ask before every call"),
            "set readOnlyHint: true if the tool only reads, or rename it after what it changes",
        )),
        None if hints.read_only == Some(true) => {
            // An updating verb: not destructive, but not read-only either.
            if let Some(verb) = write_verb(name) {
                findings.push(Finding::new(
                    "verb-write",
                    tool_name,
                    format!("`{verb}` in the name, but readOnlyHint is true: clients may run a change without asking"),
                    "set readOnlyHint: false (and destructiveHint as it is), or rename the tool if it only reads",
                ));
            }
        }
        None => {}
    }
    if hints.open_world.is_none() {
        findings.push(Finding::new(
            "open-world-unstated",
            tool_name,
            "openWorldHint is not stated (clients assume true: it reaches outside systems)",
            "state `openWorldHint`: false if the tool only touches the server's own data",
        ));
    }
}

/// The first updating verb among the name's tokens that has an object after it
/// (`update_user`, `add_tag`: a bare `add` is as often arithmetic as a change).
fn write_verb(name: &str) -> Option<&'static str> {
    let tokens = toolsmith_infer::tokens(name);
    let verbs = &tokens[..tokens.len().saturating_sub(1)];
    WRITE_VERBS
        .iter()
        .find(|verb| verbs.iter().any(|t| t == *verb))
        .copied()
}

fn writes(name: &str) -> bool {
    matches!(
        toolsmith_infer::implied(name),
        Some(Implied::Destructive(_))
    ) || write_verb(name).is_some()
}

fn reads(name: &str) -> bool {
    matches!(toolsmith_infer::implied(name), Some(Implied::ReadOnly(_))) && !writes(name)
}

/// The "stamped defaults" smell: one hint block copied onto several tools, although some of
/// their names read and others write. Reported once per block, for the server. Linear: the
/// tools are grouped by their block once.
pub(super) fn stamped(tools: &[Value], findings: &mut Vec<Finding>) {
    fn name(tool: &Value) -> &str {
        tool.get("name").and_then(Value::as_str).unwrap_or("")
    }
    let mut blocks: HashMap<Stated, Vec<&str>> = HashMap::new();
    let mut order = Vec::new();
    for tool in tools {
        let block = stated(tool);
        if block.read_only.is_none() && block.destructive.is_none() {
            continue;
        }
        let names = blocks.entry(block).or_default();
        if names.is_empty() {
            order.push(block);
        }
        names.push(name(tool));
    }
    let show = |hint: Option<bool>| hint.map_or("unstated".to_owned(), |b| b.to_string());
    for block in order {
        let names = &blocks[&block];
        if names.len() < 2 {
            continue;
        }
        let (Some(reader), Some(writer)) = (
            names.iter().find(|n| reads(n)),
            names.iter().find(|n| writes(n)),
        ) else {
            continue;
        };
        let who = if names.len() == tools.len() {
            format!("all {} tools declare", names.len())
        } else {
            format!("{} of {} tools declare", names.len(), tools.len())
        };
        findings.push(Finding::new(
            "hints-stamped",
            None,
            format!(
                "{who} the same hints (readOnlyHint {}, destructiveHint {}, idempotentHint {}, openWorldHint {}), yet `{reader}` reads and `{writer}` writes",
                show(block.read_only),
                show(block.destructive),
                show(block.idempotent),
                show(block.open_world),
            ),
            "declare each tool's own hints instead of one default block",
        ));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::rules::test_support::*;

    fn hints(name: &str, annotations: serde_json::Value) -> serde_json::Value {
        with(name, "annotations", Some(annotations))
    }

    #[test]
    fn hints_missing() {
        assert!(!codes(&[good("get_note")]).contains(&"hints-missing"));
        assert!(codes(&[with("get_note", "annotations", None)]).contains(&"hints-missing"));
        assert!(codes(&[hints("get_note", json!({"title": "Get"}))]).contains(&"hints-missing"));
    }

    #[test]
    fn hints_incomplete() {
        let both = json!({"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false});
        assert!(!codes(&[hints("make_note", both)]).contains(&"hints-incomplete"));
        let one = json!({"readOnlyHint": true, "openWorldHint": false});
        assert_eq!(codes(&[hints("make_note", one)]), ["hints-incomplete"]);
        let other = json!({"destructiveHint": false, "openWorldHint": false});
        assert_eq!(codes(&[hints("make_note", other)]), ["hints-incomplete"]);
    }

    #[test]
    fn hints_contradictory() {
        assert!(!codes(&[good("note")]).contains(&"hints-contradictory"));
        let both = json!({"readOnlyHint": true, "destructiveHint": true, "openWorldHint": false});
        assert_eq!(codes(&[hints("note", both)]), ["hints-contradictory"]);
    }

    #[test]
    fn verb_destructive() {
        let right = json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false});
        assert_eq!(codes(&[hints("delete_note", right)]), Vec::<&str>::new());
        let not = json!({"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false});
        assert_eq!(codes(&[hints("delete_note", not)]), ["verb-destructive"]);
        // Read-only, with destructiveHint false: `good` is both.
        assert_eq!(codes(&[good("purgeCache")]), ["verb-destructive"]);
    }

    #[test]
    fn verb_read() {
        assert_eq!(codes(&[good("list_notes")]), Vec::<&str>::new());
        let writes =
            json!({"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false});
        assert_eq!(codes(&[hints("list_notes", writes)]), ["verb-read"]);
    }

    #[test]
    fn open_world_unstated() {
        assert!(!codes(&[good("note")]).contains(&"open-world-unstated"));
        let tool = hints(
            "note",
            json!({"readOnlyHint": true, "destructiveHint": false}),
        );
        assert_eq!(codes(&[tool]), ["open-world-unstated"]);
    }

    #[test]
    fn verb_write() {
        let read_only =
            json!({"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false});
        for name in [
            "update_user",
            "setTitle",
            "create-note",
            "send_email",
            "rename_file",
            "upload_file",
            "post_message",
            "add_tag",
            "move_item",
            "patch_user",
            "insert_row",
            "write_file",
            "edit_page",
            "modify_acl",
            "put_object",
        ] {
            assert_eq!(
                codes(&[hints(name, read_only.clone())]),
                ["verb-write"],
                "{name}"
            );
        }
        // Read-only names, and writing tools that say so, are fine.
        assert!(codes(&[hints("list_users", read_only.clone())]).is_empty());
        // A bare verb names no object: `add` is as often arithmetic.
        assert!(codes(&[hints("add", read_only.clone())]).is_empty());
        let writes =
            json!({"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false});
        assert!(codes(&[hints("update_user", writes)]).is_empty());
        // A deleting verb keeps its own, stronger finding.
        assert_eq!(
            codes(&[hints("delete_user", read_only)]),
            ["verb-destructive"]
        );
    }

    #[test]
    fn a_block_stamped_on_some_tools_whose_verbs_disagree() {
        let read_only =
            json!({"readOnlyHint": true, "destructiveHint": false, "openWorldHint": false});
        let own = json!({"readOnlyHint": false, "destructiveHint": false, "openWorldHint": true});
        let tools = [
            hints("list_users", read_only.clone()),
            hints("remove_user", read_only.clone()),
            hints("update_user", read_only),
            hints("import_users", own),
        ];
        let found: Vec<_> = crate::audit(&tools)
            .into_iter()
            .filter(|f| f.rule.code == "hints-stamped")
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].message.starts_with("3 of 4 tools declare"),
            "{}",
            found[0].message
        );
        assert!(
            found[0]
                .message
                .contains("`list_users` reads and `remove_user` writes"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn hints_stamped() {
        let block = json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false});
        let stamped = [
            hints("get_note", block.clone()),
            hints("create_note", block.clone()),
        ];
        assert!(
            codes(&stamped).contains(&"hints-stamped"),
            "{:?}",
            codes(&stamped)
        );
        let finding = crate::audit(&stamped)
            .into_iter()
            .find(|f| f.rule.code == "hints-stamped")
            .unwrap();
        assert_eq!(finding.tool, None);
        assert!(
            finding
                .message
                .contains("`get_note` reads and `create_note` writes")
        );
        // Only readers (the same block is then right), or different blocks: no finding.
        let readers = [good("get_note"), good("list_notes")];
        assert!(!codes(&readers).contains(&"hints-stamped"));
        let own = [good("get_note"), hints("create_note", block)];
        assert!(!codes(&own).contains(&"hints-stamped"));
    }
}
