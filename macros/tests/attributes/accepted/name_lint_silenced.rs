use toolsmith::tool;

/// Marks a note as deleted without removing it, so it is read-only from the store's view.
#[tool(read_only, allow_name_mismatch)]
fn delete_preview(note_id: u64) -> u64 {
    note_id
}

/// Lists nothing: the name's verb is checked on whole tokens, `playlist` is not `list`.
#[tool(destructive = false)]
fn playlist_create(title: String) -> String {
    title
}

/// A budget is not a get.
#[tool(destructive = false, idempotent)]
fn budget_update(amount: i64) -> i64 {
    amount
}

/// Honest names need no key.
#[tool(read_only, closed_world)]
fn get_total() -> i64 {
    0
}

/// Deletes honestly.
#[tool(destructive, idempotent)]
fn delete_note(note_id: u64) -> bool {
    note_id > 0
}

#[test]
fn compiles_and_works() {
    assert_eq!(delete_preview(3), 3);
    // Every one is registered (the binary's registry holds the other cases' tools too).
    let registry = toolsmith::Registry::global();
    for name in [
        "delete_preview",
        "playlist_create",
        "budget_update",
        "get_total",
        "delete_note",
    ] {
        assert!(registry.get(name).is_some(), "{name} is registered");
    }
}
