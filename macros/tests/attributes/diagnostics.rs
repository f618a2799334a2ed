//! Compile-time diagnostics of `#[tool]`, `#[resource]` and `#[prompt]`: each case in
//! `tests/ui/fail/` fails with the one error (or the denied name-lint warning) its `.stderr`
//! holds. trybuild checks them all in one `cargo check` of a project of its own.

#[test]
fn misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/fail/*.rs");
}
