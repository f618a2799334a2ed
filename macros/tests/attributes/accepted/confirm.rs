use toolsmith::{State, tool};

struct Store;

/// Delete a draft.
#[tool(
    destructive,
    closed_world,
    confirm = "Delete draft {draft_id} ({{really}})?"
)]
fn delete_draft(store: State<Store>, draft_id: u64) -> bool {
    let _ = &*store;
    draft_id > 0
}

/// Empty the bin.
#[tool(destructive, closed_world, confirm)]
fn empty_bin() {}

#[test]
fn compiles_and_works() {
    let _ = empty_bin;
}
