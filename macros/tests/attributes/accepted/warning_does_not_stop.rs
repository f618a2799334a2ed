//! The name lint is a warning (`deprecated`, see tests/ui/fail/warn_*.rs, where it is denied),
//! never an error: allowed here, the case compiles and the tool keeps its declared hints.
#![allow(deprecated)]
use toolsmith::tool;

/// Deletes nothing, says the hint; the name disagrees.
#[tool(read_only)]
fn delete_everything() -> bool {
    false
}

#[test]
fn compiles_and_works() {
    assert!(!delete_everything());
    assert!(
        toolsmith::Registry::global()
            .get("delete_everything")
            .unwrap()
            .hints()
            .read_only
    );
}
