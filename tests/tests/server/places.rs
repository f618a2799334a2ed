//! Where a call runs: a sync `fn` on the pool until its calls prove quick, then where its
//! request was read; one declared `#[tool(blocking)]` (sync or async), with a timeout or
//! taking a `Cancellation`, always on the pool; a proven one that turns slow back on the pool. A pool thread is named
//! `toolsmith-sync`: each tool answers with the name of the thread it ran on. A tool that
//! panics in place runs on the pool from then on.

use std::time::Duration;

use serde_json::json;
use toolsmith::error::ErrorKind;
use toolsmith::testing::{CallError, Client};
use toolsmith::tool;

const POOL: &str = "toolsmith-sync";

fn thread() -> String {
    std::thread::current().name().unwrap_or("").to_owned()
}

/// Answers at once.
#[tool(read_only, closed_world)]
fn quick_sync() -> String {
    thread()
}

/// Answers at once, but is declared blocking.
#[tool(blocking, read_only, closed_world)]
fn declared_sync() -> String {
    thread()
}

/// Answers at once, but is declared blocking.
#[tool(blocking, read_only, closed_world)]
async fn declared_async() -> String {
    thread()
}

/// Takes 3 ms of its thread every time.
#[tool(read_only, closed_world)]
fn steady_sync() -> String {
    std::thread::sleep(Duration::from_millis(3));
    thread()
}

/// Answers at once, under a timeout.
#[tool(read_only, closed_world, timeout = "5s")]
fn timed_sync() -> String {
    thread()
}

/// Answers at once, and could be stopped.
#[tool(read_only, closed_world)]
fn cancellable_sync(cancel: toolsmith::context::Cancellation) -> String {
    assert!(!cancel.is_cancelled());
    thread()
}

/// Waits `ms` (past its timeout), on a pool thread.
#[tool(blocking, read_only, closed_world, timeout = "50ms")]
async fn timed_blocking_async(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    thread()
}

/// Answers at once, or after `ms` of its thread.
#[tool(read_only, closed_world)]
fn turns_slow(ms: u64) -> String {
    std::thread::sleep(Duration::from_millis(ms));
    thread()
}

/// Waits on a future of the runtime it runs in (`Handle::block_on`): possible on a pool
/// thread, a panic on one of the runtime's own.
#[tool(read_only, closed_world)]
fn blocks_on_async(wait: bool) -> String {
    if wait {
        tokio::runtime::Handle::current().block_on(async { tokio::task::yield_now().await });
    }
    thread()
}

async fn client() -> Client {
    Client::connect(toolsmith_tests::server_of(module_path!()))
        .await
        .unwrap()
}

async fn ran_on(client: &Client, tool: &str, args: serde_json::Value) -> String {
    client.call(tool, args).await.unwrap().text()
}

/// Calls `tool` until it runs outside the pool (at most 100 calls: a machine busy enough to
/// make a quick run look slow delays the proof); the calls it took.
async fn until_in_place(client: &Client, tool: &str, args: serde_json::Value) -> usize {
    for calls in 1..=100 {
        if ran_on(client, tool, args.clone()).await != POOL {
            return calls;
        }
    }
    panic!("{tool} never ran in place");
}

#[tokio::test]
async fn a_quick_sync_tool_runs_on_the_pool_until_proven_then_in_place() {
    let client = client().await;
    assert_eq!(ran_on(&client, "quick_sync", json!({})).await, POOL);
    let calls = until_in_place(&client, "quick_sync", json!({})).await;
    assert!(calls >= 3, "proven after {calls} calls in all");
    // Mostly in place from now on (a step that a busy machine makes look slow sends a few
    // calls back to the pool, under review, until quick steps clear it).
    let mut in_place = 0;
    for _ in 0..20 {
        in_place += usize::from(ran_on(&client, "quick_sync", json!({})).await != POOL);
    }
    assert!(in_place >= 10, "{in_place} of 20 in place");
}

#[tokio::test]
async fn a_tool_declared_blocking_or_timed_or_slow_stays_on_the_pool() {
    let client = client().await;
    for _ in 0..12 {
        for tool in [
            "declared_sync",
            "declared_async",
            "steady_sync",
            "timed_sync",
            "cancellable_sync",
        ] {
            assert_eq!(ran_on(&client, tool, json!({})).await, POOL, "{tool}");
        }
    }
}

#[tokio::test]
async fn a_proven_tool_that_turns_slow_goes_back_to_the_pool() {
    let client = client().await;
    until_in_place(&client, "turns_slow", json!({"ms": 0})).await;
    // It holds the reading thread past the budget: its next calls start on the pool (and a
    // call on the pool that holds it so long confirms it there).
    ran_on(&client, "turns_slow", json!({"ms": 40})).await;
    for _ in 0..3 {
        assert_eq!(ran_on(&client, "turns_slow", json!({"ms": 40})).await, POOL);
    }
}

/// A blocking `async fn` past its timeout is stopped at its next `.await` on its pool
/// thread: with one slot, the next blocking call does not wait for the first one's sleep.
#[tokio::test]
async fn a_blocking_async_tool_past_its_timeout_frees_its_slot() {
    let tools = toolsmith_tests::declared_in(module_path!());
    let client = Client::connect(toolsmith::Server::with_registry(tools).max_sync_calls(1))
        .await
        .unwrap();
    let timed_out = client
        .call("timed_blocking_async", json!({"ms": 30_000}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            timed_out,
            CallError::Tool {
                kind: ErrorKind::TimedOut,
                ..
            }
        ),
        "{timed_out}"
    );
    let next = tokio::time::timeout(
        Duration::from_secs(10),
        client.call("declared_async", json!({})),
    )
    .await
    .expect("the slot was freed");
    assert_eq!(next.unwrap().text(), POOL);
}

#[tokio::test]
async fn a_tool_that_panics_in_place_runs_on_the_pool_from_then_on() {
    let client = client().await;
    assert_eq!(
        ran_on(&client, "blocks_on_async", json!({"wait": true})).await,
        POOL,
        "on the pool, Handle::block_on works"
    );
    until_in_place(&client, "blocks_on_async", json!({"wait": false})).await;
    // In place, on the runtime's thread, it cannot start a runtime: its one failed call, an
    // error result; the server goes on, and the tool runs on the pool from then on.
    let failed = client
        .call("blocks_on_async", json!({"wait": true}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            failed,
            CallError::Tool {
                kind: ErrorKind::Failed,
                ..
            }
        ),
        "{failed}"
    );
    for _ in 0..10 {
        assert_eq!(
            ran_on(&client, "blocks_on_async", json!({"wait": true})).await,
            POOL
        );
    }
}
