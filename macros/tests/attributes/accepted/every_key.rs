use toolsmith::{Hints, tool};

/// Flags.
#[tool(read_only, idempotent, open_world)]
fn flags() {}

/// Booleans, true.
#[tool(read_only = true, idempotent = true, open_world = true)]
fn booleans_true() {}

/// Booleans, false.
#[tool(
    read_only = false,
    destructive = false,
    idempotent = false,
    open_world = false
)]
fn booleans_false() {}

/// Destructive as a flag, closed world as a flag.
#[tool(destructive, closed_world, idempotent)]
fn destructive_flag() {}

/// Destructive spelled out.
#[tool(destructive = true)]
fn destructive_true() {}

/// Nothing stated.
#[tool]
fn nothing_stated() {}

/// Ignored in favour of the key.
#[tool(
    read_only,
    title = "Named",
    name = "renamed-tool.v1",
    description = "From the key."
)]
fn named() {}

/// Keys in any order, trailing comma.
#[tool(title = "Ordered", closed_world, read_only)]
fn ordered() {}

/// Metadata keys.
#[tool(read_only, category = "notes", tags = ["search", "read"])]
fn with_metadata() {}

/// Named scopes.
#[tool(destructive = false, scopes = ["billing:admin", "billing:read"])]
fn charge(caller: toolsmith::context::Caller) -> String {
    caller.subject().unwrap_or("anonymous").to_owned()
}

fn hints(name: &str) -> Hints {
    toolsmith::Registry::global().get(name).expect(name).hints()
}

/// May run as a task.
#[tool(task, read_only)]
async fn as_task() {}

/// Only as a task, sync.
#[tool(task = "required", destructive = false)]
fn only_as_task() {}

/// Optional, spelled out.
#[tool(task = "optional", read_only)]
fn optional_task() {}

/// Blocks its thread, sync.
#[tool(blocking, read_only, closed_world)]
fn blocks_sync() {}

/// Blocks its thread, async.
#[tool(read_only, blocking)]
async fn blocks_async() {}

#[test]
fn compiles_and_works() {
    let blocking = |name| toolsmith::Registry::global().get(name).unwrap().blocking();
    assert!(blocking("blocks_sync") && blocking("blocks_async"));
    assert!(!blocking("flags") && !blocking("as_task"));
    blocks_sync();
    drop(blocks_async());
    use toolsmith::tool::TaskSupport;
    let task = |name| toolsmith::Registry::global().get(name).unwrap().task();
    assert_eq!(task("as_task"), TaskSupport::Optional);
    assert_eq!(task("only_as_task"), TaskSupport::Required);
    assert_eq!(task("optional_task"), TaskSupport::Optional);
    assert_eq!(task("flags"), TaskSupport::Never);
    drop(as_task());
    only_as_task();
    optional_task();
    let h = |read_only, destructive, idempotent, open_world| Hints {
        read_only,
        destructive,
        idempotent,
        open_world,
    };
    assert_eq!(hints("flags"), h(true, false, true, true));
    assert_eq!(hints("booleans_true"), h(true, false, true, true));
    assert_eq!(hints("booleans_false"), h(false, false, false, false));
    assert_eq!(hints("destructive_flag"), h(false, true, true, false));
    assert_eq!(hints("destructive_true"), h(false, true, false, true));
    assert_eq!(hints("nothing_stated"), h(false, true, false, true));
    assert_eq!(hints("ordered"), h(true, false, true, false));
    let renamed = toolsmith::Registry::global()
        .get("renamed-tool.v1")
        .unwrap();
    assert_eq!(renamed.header().title(), Some("Named"));
    assert_eq!(renamed.header().description(), "From the key.");
    assert_eq!(
        toolsmith::Registry::global()
            .get("ordered")
            .unwrap()
            .header()
            .title(),
        Some("Ordered")
    );
    let meta = toolsmith::Registry::global().get("with_metadata").unwrap();
    assert_eq!(meta.category(), Some("notes"));
    assert_eq!(meta.tags(), ["search", "read"]);
    let charge_tool = toolsmith::Registry::global().get("charge").unwrap();
    assert_eq!(
        charge_tool.header().scopes(),
        ["billing:admin", "billing:read"]
    );
    let names = toolsmith::tool::ScopeNames::default();
    assert!(!names.permits(charge_tool, &["tools:destructive", "billing:admin"]));
    assert!(names.permits(charge_tool, &["billing:read", "billing:admin"]));
    assert!(names.permits(
        toolsmith::Registry::global().get("flags").unwrap(),
        &["tools:write"]
    ));
    assert_eq!(
        charge(toolsmith::context::Caller::new("alice", ["billing:admin"])),
        "alice"
    );
    flags();
    named();
}
