//! The serving policy from the environment (`TOOLSMITH_READ_ONLY`, ...) applies to `call` as
//! it does to the server, and its boolean variables take the usual spellings.

use std::process::{Command, Output};

use super::{notes, stderr, stdout};

/// `notes call NAME --args ARGS` with `env` set (and every policy variable of the caller's
/// environment removed).
fn call_with(env: &[(&str, &str)], name: &str, args: &str) -> Output {
    let mut command = Command::new(notes());
    for var in [
        "TOOLSMITH_READ_ONLY",
        "TOOLSMITH_DENY_DESTRUCTIVE",
        "TOOLSMITH_ONLY_CATEGORY",
        "TOOLSMITH_ONLY_TAG",
    ] {
        command.env_remove(var);
    }
    command
        .args(["call", name, "--args", args])
        .args((name == "delete_note").then_some("--yes"))
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs")
}

/// `call delete_note --yes` (delete_note asks the user first: `--yes` is the user's yes).
fn delete_with(env: &[(&str, &str)]) -> Output {
    call_with(env, "delete_note", r#"{"note_id": 1}"#)
}

/// The delete ran: it printed its result, which says the note was deleted.
fn deleted(out: &Output) -> bool {
    out.status.success() && stdout(out).contains(r#""deleted": true"#)
}

/// The call was refused by the policy `flag`: non-zero exit, the policy's reason on stderr,
/// and the tool did not run (nothing on stdout).
fn assert_refused(out: &Output, flag: &str) {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    assert!(
        stdout(out).is_empty(),
        "the tool did not run: {}",
        stdout(out)
    );
    let why = stderr(out);
    assert!(
        why.contains("tool 'delete_note' is not available") && why.contains(flag),
        "{why}"
    );
}

#[test]
fn read_only_from_the_environment_refuses_call() {
    for yes in ["1", "true", "TRUE", "yes", "on"] {
        let out = delete_with(&[("TOOLSMITH_READ_ONLY", yes)]);
        assert_refused(&out, "--read-only");
    }
    // Read-only tools are still offered.
    let read = call_with(
        &[("TOOLSMITH_READ_ONLY", "1")],
        "get_note",
        r#"{"note_id": 1}"#,
    );
    assert!(read.status.success(), "{}", stderr(&read));
}

#[test]
fn false_spellings_and_empty_leave_call_unrestricted() {
    for no in ["0", "false", "no", "off", ""] {
        let out = delete_with(&[("TOOLSMITH_READ_ONLY", no)]);
        assert!(
            deleted(&out),
            "TOOLSMITH_READ_ONLY={no:?}: {}",
            stderr(&out)
        );
    }
    let out = delete_with(&[]);
    assert!(deleted(&out), "{}", stderr(&out));
}

#[test]
fn a_malformed_boolean_is_a_usage_error_naming_the_spellings() {
    let out = delete_with(&[("TOOLSMITH_DENY_DESTRUCTIVE", "maybe")]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("1/0, true/false, yes/no, on/off"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn deny_destructive_and_only_tag_from_the_environment_apply_to_call() {
    let out = delete_with(&[("TOOLSMITH_DENY_DESTRUCTIVE", "1")]);
    assert_refused(&out, "--deny-destructive");
    let out = delete_with(&[("TOOLSMITH_DENY_DESTRUCTIVE", "off")]);
    assert!(deleted(&out), "{}", stderr(&out));

    let out = delete_with(&[("TOOLSMITH_ONLY_TAG", "read")]);
    assert_refused(&out, "--only-tag read");
    let out = delete_with(&[("TOOLSMITH_ONLY_TAG", "delete")]);
    assert!(deleted(&out), "{}", stderr(&out));

    let out = delete_with(&[("TOOLSMITH_ONLY_CATEGORY", "billing")]);
    assert_refused(&out, "--only-category billing");
}
