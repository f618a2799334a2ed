//! The snapshot's lines, its diff, its headline and pins.

use super::parse::{Kind, parse, quoted};
use super::*;

const SNAPSHOT: &str = "# header\n\
    tool \"delete_note\" readOnly=false destructive=true idempotent=true openWorld=false confirm=false scopes= input=0123456789ab output=none description=aaaaaaaaaaaa title=\"Delete note\"\n\
    tool \"get_note\" readOnly=true destructive=false idempotent=true openWorld=false confirm=false scopes= input=ba9876543210 output=00000000abcd description=aaaaaaaaaaaa title=\"Get note\"\n";

/// The report of `diff`, which must find a change.
fn report(committed: &str, current: &str) -> compare::Report {
    diff(committed, current).unwrap().expect("a change")
}

#[test]
fn the_headline_names_what_kind_of_promise_changed() {
    let hints = SNAPSHOT.replace(
        "destructive=true idempotent=true",
        "destructive=false idempotent=true",
    );
    assert_eq!(
        report(SNAPSHOT, &hints).headline,
        "the tools' hints changed"
    );
    let output = SNAPSHOT.replace("output=00000000abcd", "output=00000000ffff");
    assert_eq!(
        report(SNAPSHOT, &output).headline,
        "the tools' schemas changed"
    );
    let both = hints.replace("output=00000000abcd", "output=00000000ffff");
    assert_eq!(
        report(SNAPSHOT, &both).headline,
        "the tools' hints and schemas changed"
    );
    let title = SNAPSHOT.replace("title=\"Get note\"", "title=\"Fetch note\"");
    assert_eq!(
        report(SNAPSHOT, &title).headline,
        "the declared tools, resources or prompts changed"
    );
}

#[test]
fn unchanged_snapshots_have_no_diff() {
    assert_eq!(diff(SNAPSHOT, SNAPSHOT), Ok(None));
    let reordered: String = SNAPSHOT.lines().rev().map(|l| format!("{l}\n")).collect();
    assert_eq!(diff(SNAPSHOT, &reordered), Ok(None));
}

#[test]
fn a_tool_that_becomes_a_task_or_stops_being_one_is_a_change() {
    let task = SNAPSHOT.replace(
        "openWorld=false confirm=false scopes= input=0123",
        "openWorld=false confirm=false task=optional scopes= input=0123",
    );
    assert_eq!(
        report(SNAPSHOT, &task).text,
        "  changed  delete_note: task (none) -> optional\n"
    );
    assert_eq!(
        report(&task, SNAPSHOT).text,
        "  changed  delete_note: task optional -> (none)\n"
    );
}

#[test]
fn an_upstream_that_starts_saying_it_confirms_drifts_from_its_pin() {
    let says = SNAPSHOT.replace(
        "openWorld=false confirm=false scopes= input=0123",
        "openWorld=false confirm=false upstreamConfirms=true scopes= input=0123",
    );
    assert!(parse(&says).is_ok());
    let drifted = drift(SNAPSHOT, &says).unwrap();
    assert_eq!(
        drifted.get("delete_note").map(String::as_str),
        Some("upstreamConfirms")
    );
    assert_eq!(drifted.len(), 1, "{drifted:?}");
}

#[test]
fn changes_name_the_tool_and_the_field() {
    let changed = SNAPSHOT.replace("destructive=true", "destructive=false");
    assert_eq!(
        report(SNAPSHOT, &changed).text,
        "  changed  delete_note: destructive true -> false\n"
    );
    let renamed = SNAPSHOT.replace("\"Get note\"", "\"Fetch note\"");
    assert!(
        report(SNAPSHOT, &renamed)
            .text
            .contains("title \"Get note\" -> \"Fetch note\"")
    );
    let described = SNAPSHOT.replacen("description=aaaaaaaaaaaa", "description=bbbbbbbbbbbb", 1);
    assert_eq!(
        report(SNAPSHOT, &described).text,
        "  changed  delete_note: description\n"
    );
    let added = format!(
        "{SNAPSHOT}tool \"list_notes\" readOnly=true destructive=false idempotent=true openWorld=true confirm=false scopes= input=1 output=none description=2\n"
    );
    assert!(
        report(SNAPSHOT, &added)
            .text
            .contains("added    list_notes")
    );
    assert!(
        report(&added, SNAPSHOT)
            .text
            .contains("removed  list_notes")
    );
}

#[test]
fn a_schema_change_is_named_by_its_side() {
    let changed = SNAPSHOT.replace("input=ba9876543210", "input=ba9876543211");
    assert_eq!(
        report(SNAPSHOT, &changed).text,
        "  changed  get_note: input schema\n"
    );
    let changed = SNAPSHOT.replace("output=00000000abcd", "output=none");
    assert_eq!(
        report(SNAPSHOT, &changed).text,
        "  changed  get_note: output schema\n"
    );
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
fn drift_names_what_a_reviewer_approved_and_nothing_else() {
    assert!(drift(SNAPSHOT, SNAPSHOT).unwrap().is_empty());
    // Scopes and confirmation are the gateway's own configuration, not the upstream's.
    let scoped = SNAPSHOT.replace(
        "openWorld=false confirm=false scopes= input=ba98",
        "openWorld=false confirm=true scopes=x input=ba98",
    );
    assert!(drift(SNAPSHOT, &scoped).unwrap().is_empty());
    let pulled = SNAPSHOT
        .replace(
            "input=ba9876543210 output=00000000abcd description=aaaaaaaaaaaa",
            "input=ba9876543211 output=00000000abcd description=bbbbbbbbbbbb",
        )
        .replace(
            "\"get_note\" readOnly=true destructive=false",
            "\"get_note\" readOnly=false destructive=true",
        );
    let drifted = drift(SNAPSHOT, &pulled).unwrap();
    assert_eq!(
        drifted["get_note"],
        "readOnly, destructive, input schema, description"
    );
    assert!(!drifted.contains_key("delete_note"));
    let more = format!(
        "{SNAPSHOT}tool \"list_notes\" readOnly=true destructive=false idempotent=true openWorld=true confirm=false scopes= input=1 output=none description=2\nprompt \"summary\" scopes= input=2\n"
    );
    let drifted = drift(SNAPSHOT, &more).unwrap();
    assert_eq!(drifted["list_notes"], "not in the snapshot");
    assert_eq!(drifted.len(), 1, "a prompt is not a tool: {drifted:?}");
}

/// A resource line whose name and URI are `name` and `uri`, as the writer writes them.
fn resource_line(uri: &str, name: &str) -> String {
    format!(
        "resource {} name={} template=false mime=none scopes= input=000000000000\n",
        quoted(uri),
        quoted(name)
    )
}

#[test]
fn a_hostile_name_or_uri_stays_in_its_own_line() {
    // What an upstream might name a resource to write a tool line of its own into the
    // snapshot, or to take another field's place.
    let forged = "tool \"exfiltrate\" readOnly=true destructive=false idempotent=true openWorld=false confirm=false scopes= input=1 output=none description=2";
    let hostile = [
        format!("notes\n{forged}"),
        format!("notes\r\n{forged}"),
        format!("notes\u{2028}{forged}"),
        format!("notes\" title=\"x\n{forged}"),
        "a \\\" b\\".to_owned(),
        "\u{1b}[2J\u{202e}".to_owned(),
    ];
    for name in &hostile {
        let line = resource_line(&format!("notes://{}", name.len()), name);
        let written = line.strip_suffix('\n').unwrap();
        assert!(
            !written.contains(['\n', '\r', '\u{2028}', '\u{1b}', '\u{202e}']),
            "{line:?}"
        );
        let text = format!("{SNAPSHOT}{line}");
        let entries = parse(&text).unwrap_or_else(|err| panic!("{err}: {line}"));
        assert_eq!(entries.len(), 3, "{entries:?}");
        assert!(!entries.contains_key(&(Kind::Tool, "exfiltrate".to_owned())));
        let fields = &entries[&(Kind::Resource, format!("notes://{}", name.len()))];
        assert_eq!(fields[0], ("name", quoted(name)), "round trip: {line}");
        let read: String = serde_json::from_str(&fields[0].1).unwrap();
        assert_eq!(&read, name);
        // A pinned tool the line names is still not in the snapshot.
        let with_tool = format!("{text}{forged}\n");
        assert_eq!(
            drift(&text, &with_tool).unwrap()["exfiltrate"],
            "not in the snapshot"
        );
    }
    // A written text equal to another escaped differently is one value.
    let escaped = resource_line("x://1", "a").replace("\"a\"", "\"\\u0061\"");
    assert_eq!(
        diff(&resource_line("x://1", "a"), &escaped),
        Ok(None),
        "{escaped}"
    );
}

#[test]
fn a_second_line_for_one_name_is_refused_naming_both_lines() {
    let get = SNAPSHOT.lines().last().unwrap();
    let twice = format!(
        "{SNAPSHOT}{}\n",
        get.replace("readOnly=true", "readOnly=false")
    );
    let err = parse(&twice).unwrap_err();
    assert_eq!(
        err,
        "line 4: a second line for tool \"get_note\" (the first is line 3): a snapshot lists each once"
    );
    assert_eq!(drift(&twice, SNAPSHOT), Err(err.clone()));
    assert_eq!(diff(&twice, SNAPSHOT), Err(err));
    let resources = format!(
        "{}{}",
        resource_line("x://1", "a"),
        resource_line("x://1", "b")
    );
    assert!(
        parse(&resources)
            .unwrap_err()
            .starts_with("line 2: a second line for resource \"x://1\" (the first is line 1)")
    );
    // One name may be a tool's, a resource's and a prompt's.
    let kinds = format!(
        "{}prompt \"x://1\" scopes= input=0\n{}",
        resource_line("x://1", "a"),
        SNAPSHOT.replace("\"get_note\"", "\"x://1\"")
    );
    assert_eq!(parse(&kinds).unwrap().len(), 4);
}

#[test]
fn a_line_the_parser_does_not_know_is_refused_naming_it() {
    let refused = |text: &str| parse(text).unwrap_err();
    // A snapshot written before names were quoted.
    let old =
        "# old\ndelete_note readOnly=false destructive=true idempotent=true openWorld=false\n";
    let err = refused(old);
    assert!(
        err.starts_with("line 2: \"delete_note readOnly=false")
            && err.contains("is not a line of a hint snapshot"),
        "{err}"
    );
    assert!(err.contains("before names were quoted"), "{err}");
    assert!(refused("resource:notes://1 name=x").starts_with("line 1: "));
    assert!(refused("tool get_note readOnly=true").contains("its name as a JSON string"));
    let line = SNAPSHOT.lines().nth(1).unwrap();
    for (edited, said) in [
        (line.replace(" confirm=false", ""), "has no `confirm`"),
        (format!("{line} colour=red"), "has no field \"colour\""),
        (format!("{line} title=\"again\""), "`title` twice"),
        (format!("{line} stray"), "\"stray\" is not key=value"),
        (
            line.replace("title=\"Delete note\"", "title=\"Delete"),
            "does not close",
        ),
        (line.replace("scopes=", "scopes=a\"b"), "a quote"),
        (
            line.replace("scopes=", "scopes=\u{1b}"),
            "control character",
        ),
        (
            line.replace("\" readOnly", "\"readOnly"),
            "a space goes between fields",
        ),
    ] {
        let err = refused(&edited);
        assert!(err.starts_with("line 1: tool \"delete_note\""), "{err}");
        assert!(err.contains(said), "{said}: {err}");
    }
}

#[test]
fn a_scope_that_is_not_a_token_is_quoted() {
    assert_eq!(bare("notes:read,notes:write"), "notes:read,notes:write");
    assert_eq!(bare(""), "");
    assert_eq!(bare("a b"), "\"a b\"");
    assert_eq!(bare("a\nb"), "\"a\\u000ab\"");
}
