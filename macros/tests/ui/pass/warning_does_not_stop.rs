// The name lint warns (see ui/fail/warn_*.rs) but compilation continues.
use toolsmith::tool;

/// Deletes nothing, says the hint; the name disagrees.
#[tool(read_only)]
fn delete_everything() -> bool {
    false
}

fn main() {
    assert!(!delete_everything());
    assert!(toolsmith::registry().get("delete_everything").unwrap().hints().read_only);
}
