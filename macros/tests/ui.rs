//! Compile-time diagnostics of `#[tool]`: every misuse fails with one precise error, every
//! accepted form compiles, and name/hint mismatches warn (checked by denying the warning).
//!
//! Two sets of cases: trybuild checks a set of compile-fail cases only in one build, and a set
//! with a pass case among them one case at a time (one cargo run each).

#[test]
fn misuse_fails_to_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/fail/*.rs");
}

#[test]
fn accepted_forms_compile() {
    trybuild::TestCases::new().pass("tests/ui/pass/*.rs");
}
