//! The snapshot's lines, its diff, its headline and pins.

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
    let a =
        serde_json::json!({"type": "object", "properties": {"x": {"type": "integer"}, "y": {}}});
    let b =
        serde_json::json!({"properties": {"y": {}, "x": {"type": "integer"}}, "type": "object"});
    let c = serde_json::json!({"type": "object", "properties": {"x": {"type": "number"}, "y": {}}});
    let fingerprint = |schema: &serde_json::Value| fingerprint(schema.as_object().unwrap());
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert_ne!(fingerprint(&a), fingerprint(&c));
    assert_eq!(fingerprint(&a).len(), 12);
}

#[test]
fn a_description_change_is_named_and_an_older_snapshot_without_one_still_holds() {
    let described = SNAPSHOT.replace(
        " title=\"Get note\"",
        " description=aaaaaaaaaaaa title=\"Get note\"",
    );
    assert_eq!(
        diff(SNAPSHOT, &described),
        None,
        "written before descriptions"
    );
    let rewritten = described.replace("description=aaaaaaaaaaaa", "description=bbbbbbbbbbbb");
    assert_eq!(
        diff(&described, &rewritten).unwrap(),
        "  changed  get_note: description\n"
    );
}

#[test]
fn drift_names_what_a_reviewer_approved_and_nothing_else() {
    let pinned = SNAPSHOT.replace(
        " title=\"Get note\"",
        " description=aaaaaaaaaaaa title=\"Get note\"",
    );
    assert!(drift(&pinned, &pinned).is_empty());
    // Scopes and confirmation are the gateway's own configuration, not the upstream's.
    let scoped = pinned.replace(
        "openWorld=false input=ba98",
        "openWorld=false confirm=true scopes=x input=ba98",
    );
    assert!(
        drift(&pinned, &scoped).is_empty(),
        "{:?}",
        drift(&pinned, &scoped)
    );
    let pulled = pinned
        .replace("description=aaaaaaaaaaaa", "description=bbbbbbbbbbbb")
        .replace("input=ba9876543210", "input=ba9876543211")
        .replace(
            "get_note readOnly=true destructive=false",
            "get_note readOnly=false destructive=true",
        );
    assert_eq!(
        drift(&pinned, &pulled)["get_note"],
        "readOnly, destructive, input schema, description"
    );
    assert!(!drift(&pinned, &pulled).contains_key("delete_note"));
    let more = format!(
        "{pinned}list_notes readOnly=true destructive=false idempotent=true openWorld=true input=1 output=none\nprompt:summary scopes= input=2\n"
    );
    let drifted = drift(&pinned, &more);
    assert_eq!(drifted["list_notes"], "not in the snapshot");
    assert_eq!(drifted.len(), 1, "a prompt is not a tool: {drifted:?}");
}
