//! What a build from this workspace ships, as cargo resolves it (`cargo tree`, no compiling):
//! the examples' `full` build has every optional part the guides document, and the binaries
//! `cargo build` makes at the root carry none of the test crates' switches.

use std::process::Command;

/// The features of `toolsmith` that cargo turns on for `args` (a `cargo tree` selection),
/// one `toolsmith feature "NAME"` line each.
fn runtime_features(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "tree",
            "-e",
            "features",
            "-i",
            "toolsmith",
            "--prefix",
            "none",
        ])
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_examples_full_build_has_the_webhook_approver() {
    // The guide's notes build for `--approve webhook=URL`.
    let features = runtime_features(&["-p", "toolsmith-examples", "--features", "full"]);
    for feature in ["webhook", "metrics", "otel", "redis"] {
        assert!(
            features.contains(&format!("toolsmith feature \"{feature}\"")),
            "{feature} missing from the examples' full build:\n{features}"
        );
    }
}

#[test]
fn binaries_built_at_the_root_carry_no_test_switches() {
    // `cargo build` / `cargo build --release` at the root: the default members.
    let built = runtime_features(&[]);
    assert!(built.contains("toolsmith feature \"http\""), "{built}");
    assert!(!built.contains("__test-switches"), "{built}");
    // The tests' own build has them (the check above is not vacuous).
    let tested = runtime_features(&["--workspace"]);
    assert!(
        tested.contains("toolsmith feature \"__test-switches\""),
        "{tested}"
    );
}
