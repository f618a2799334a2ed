//! The confirmation policy on the command line: `tools --confirm POLICY` shows its CONFIRM
//! column, and `call` of a tool that asks the user first needs `--yes`.

use super::{cells, run, stderr, stdout};

/// `--confirm write` asks before every tool that is not read-only.
#[test]
fn tools_shows_another_policys_confirm_column() {
    let out = run(&["tools", "--confirm", "write"]);
    let table = stdout(&out);
    let lines: Vec<&str> = table.lines().collect();
    let row = |name: &str| cells(lines.iter().find(|l| l.starts_with(name)).unwrap());
    assert_eq!(row("create_note")[6], "yes", "{table}");
    assert_eq!(row("get_note")[6], "no", "{table}");
}

#[test]
fn call_of_a_tool_that_asks_first_needs_yes() {
    let out = run(&["call", "delete_note", "--args", r#"{"note_id": 1}"#]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty(), "the tool did not run");
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    let out = run(&[
        "call",
        "delete_note",
        "--args",
        r#"{"note_id": 1}"#,
        "--yes",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(r#""deleted": true"#),
        "{}",
        stdout(&out)
    );
}
