//! Compile-time diagnostics of `#[tool]`: every misuse fails with one precise error, every
//! accepted form compiles, and name/hint mismatches warn (checked by denying the warning).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
