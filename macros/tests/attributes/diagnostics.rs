//! Compile-time diagnostics of `#[tool]`, `#[resource]` and `#[prompt]`: each case in
//! `tests/ui/fail/` fails with the one error (or the denied name-lint warning) its `.stderr`
//! holds. trybuild checks them all in one `cargo check` of a project of its own.

use std::process::Command;

/// What a build may put between cargo and rustc for the workspace's crates (CI lints while
/// it builds the tests: clippy's driver, with its arguments): the cases are compiled as a
/// user's crate is, by rustc alone, or clippy's lints would join their expected output.
const WRAPPER: [&str; 3] = [
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
    "CLIPPY_ARGS",
];

#[test]
fn misuse_fails_to_compile() {
    if WRAPPER.iter().any(|name| std::env::var_os(name).is_some()) {
        // Run again without them: a test cannot change its own environment safely while
        // the other tests of this binary run.
        let mut again = Command::new(std::env::current_exe().expect("the test binary's path"));
        again.args([
            "--exact",
            "diagnostics::misuse_fails_to_compile",
            "--nocapture",
        ]);
        for name in WRAPPER {
            again.env_remove(name);
        }
        let status = again.status().expect("the test binary runs");
        assert!(
            status.success(),
            "the compile-fail cases failed (output above)"
        );
        return;
    }
    trybuild::TestCases::new().compile_fail("tests/ui/fail/*.rs");
}
