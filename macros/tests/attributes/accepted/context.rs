use std::sync::Mutex;

use toolsmith::{Progress, State, context::Cancellation, context::ClientLog, tool};

struct Counter(Mutex<u32>);

/// Uses every context parameter; only `step` is an argument.
///
/// # Arguments
/// * `step` - How much to add.
#[tool(destructive = false, timeout = "30s")]
async fn bump(
    counter: State<Counter>,
    progress: Progress,
    cancel: Cancellation,
    log: ClientLog,
    step: u32,
) -> u32 {
    progress.report(0.0, 1.0, "starting");
    log.info("bumping");
    if cancel.is_cancelled() {
        return 0;
    }
    let mut n = counter.0.lock().unwrap();
    *n += step;
    *n
}

/// A sync tool with a timeout in milliseconds.
#[tool(read_only, timeout = "250ms")]
fn quick(cancel: Cancellation) -> bool {
    cancel.is_cancelled()
}

/// A context type under another name: it is the type that counts.
type Reporter = toolsmith::Progress;

/// Takes context through an alias, and one argument.
#[tool(read_only)]
fn aliased(reporter: Reporter, count: u32) -> u32 {
    reporter.report(1.0, 1.0, "done");
    count
}

#[test]
fn compiles_and_works() {
    let tool = toolsmith::Registry::global().get("bump").unwrap();
    assert_eq!(tool.input_schema()["required"], serde_json::json!(["step"]));
    assert_eq!(
        tool.input_schema()["properties"].as_object().unwrap().len(),
        1
    );
    let aliased_tool = toolsmith::Registry::global().get("aliased").unwrap();
    assert_eq!(
        aliased_tool.input_schema()["required"],
        serde_json::json!(["count"])
    );
    let _ = aliased(Progress::disabled(), 1);
    let _ = quick(Cancellation::default());
    drop(bump(
        State::new(Counter(Mutex::new(0))),
        Progress::disabled(),
        Cancellation::default(),
        ClientLog::disabled(),
        1,
    ));
}
