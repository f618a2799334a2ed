//! Tools as tasks (the tasks extension, SEP-2663), in-process through the test client: the
//! lifecycle, progress in the status, cancel, a task's timeout, its TTL, a client without
//! the extension, and `task = "required"`. Another subject's tasks and replicas sharing a
//! Redis store: `tasks_http.rs`.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith::Server;
use toolsmith::task::TaskStatus;
use toolsmith::testing::{CallError, Client};
use toolsmith_examples::store::Notes;

/// Wait for 10 s, unless its timeout (100 ms) ends it first.
#[toolsmith::tool(task, read_only, timeout = "100ms")]
async fn sleepy() -> String {
    tokio::time::sleep(Duration::from_secs(10)).await;
    "woke".to_owned()
}

/// Add two numbers; only as a task.
#[toolsmith::tool(task = "required", read_only)]
async fn required_add(a: i64, b: i64) -> i64 {
    a + b
}

/// How many calls of `one_at_a_time` run now, and the most that ever ran at once.
static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static MOST: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Work for 200 ms, one call at a time.
#[toolsmith::tool(task, read_only, max_concurrency = 1)]
async fn one_at_a_time() -> String {
    use std::sync::atomic::Ordering;
    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
    MOST.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(200)).await;
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    "done".to_owned()
}

async fn client() -> Client {
    Client::connect(
        Server::with_registry(toolsmith_tests::with_examples(module_path!()))
            .state(Notes::seeded()),
    )
    .await
    .expect("connects")
}

fn import(count: u32, pace_ms: u64) -> Value {
    json!({"count": count, "pace_ms": pace_ms})
}

/// How many imported notes the store holds.
async fn imported(client: &Client) -> usize {
    let found = client
        .call("search_notes", json!({"query": "Imported note"}))
        .await
        .expect("search_notes");
    found
        .structured()
        .and_then(|v| v["result"].as_array().map(Vec::len))
        .unwrap_or(0)
}

#[tokio::test]
async fn a_task_is_answered_at_once_and_its_result_is_polled() {
    let client = client().await;
    let started = std::time::Instant::now();
    let task = client
        .call_task("import_notes", import(3, 100))
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_millis(250),
        "the handle came at once"
    );
    assert_eq!(task.status(), TaskStatus::Working);
    assert_eq!(task.id().len(), 32, "128 random bits, in hex");
    assert_eq!(task.poll_interval(), Some(Duration::from_secs(1)));
    assert!(task.ttl().unwrap() >= Duration::from_secs(3600));
    let working = client.task(task.id()).await.unwrap();
    assert_eq!(working.status(), TaskStatus::Working);
    assert!(working.result().is_none());

    let done = client
        .wait_task(task.id(), Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(done.status(), TaskStatus::Completed, "{done:?}");
    let result = done.result().expect("a completed task has its result");
    assert!(!result.is_error());
    let data: Value = result.data().unwrap();
    assert_eq!(data["created"], 3);
    assert_eq!(data["note_ids"].as_array().unwrap().len(), 3);
    assert_eq!(imported(&client).await, 3);
    // Asked again, it is still there, the same.
    let again = client.task(task.id()).await.unwrap();
    assert_eq!(again.status(), TaskStatus::Completed);
}

#[tokio::test]
async fn progress_the_tool_reports_shows_in_the_status() {
    let client = client().await;
    let task = client
        .call_task("import_notes", import(20, 100))
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let (status, message, progress) = loop {
        let now = client.task(task.id()).await.unwrap();
        if let Some(progress) = now.progress() {
            break (
                now.status(),
                now.message().map(str::to_owned),
                progress.clone(),
            );
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no progress within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status, TaskStatus::Working);
    assert_eq!(progress.total, Some(20.0));
    assert!(progress.progress >= 1.0);
    assert_eq!(
        message.as_deref(),
        Some(format!("imported {} of 20 notes", progress.progress).as_str()),
        "the status message is the last progress message"
    );
    client.cancel_task(task.id()).await.unwrap();
}

#[tokio::test]
async fn a_cancelled_task_stops_running() {
    let client = client().await;
    let task = client
        .call_task("import_notes", import(100, 50))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    client.cancel_task(task.id()).await.unwrap();
    let cancelled = client.task(task.id()).await.unwrap();
    assert_eq!(
        cancelled.status(),
        TaskStatus::Cancelled,
        "cancelled at once"
    );
    assert!(cancelled.result().is_none());
    let after_cancel = imported(&client).await;
    assert!(after_cancel < 100);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        imported(&client).await,
        after_cancel,
        "no note was made after the cancel"
    );
    // A cancel of an ended task is acknowledged, and changes nothing.
    client.cancel_task(task.id()).await.unwrap();
    assert_eq!(
        client.task(task.id()).await.unwrap().status(),
        TaskStatus::Cancelled
    );
}

#[tokio::test]
async fn a_task_past_its_timeout_fails_with_a_clear_message() {
    let client = client().await;
    let task = client.call_task("sleepy", json!({})).await.unwrap();
    let failed = client
        .wait_task(task.id(), Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(failed.status(), TaskStatus::Failed);
    assert_eq!(
        failed.message(),
        Some("tool 'sleepy' timed out after 100ms")
    );
    let error = failed.error().expect("a failed task has its error");
    assert_eq!(error["code"], -32603);
    assert_eq!(error["message"], "tool 'sleepy' timed out after 100ms");
}

#[tokio::test]
async fn an_ended_task_is_kept_for_its_ttl_then_not_found() {
    let server = Server::with_registry(toolsmith_tests::with_examples(module_path!()))
        .state(Notes::seeded())
        .task_ttl(Duration::from_millis(400));
    let client = Client::connect(server).await.unwrap();
    let task = client
        .call_task("import_notes", import(1, 10))
        .await
        .unwrap();
    assert!(task.ttl().unwrap() >= Duration::from_millis(400));
    let done = client
        .wait_task(task.id(), Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(done.status(), TaskStatus::Completed);
    let ttl = done.ttl().unwrap();
    assert!(
        ttl >= Duration::from_millis(400) && ttl < Duration::from_secs(5),
        "{ttl:?}"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    let err = client.task(task.id()).await.unwrap_err();
    assert!(
        matches!(err, CallError::Protocol { code: -32602, .. }),
        "{err:?}"
    );
    assert!(err.message().contains("task not found"), "{err}");
}

#[tokio::test]
async fn a_client_without_tasks_gets_an_ordinary_call() {
    let client = client().await;
    let outcome = client.call("import_notes", import(2, 10)).await.unwrap();
    let data: Value = outcome.data().unwrap();
    assert_eq!(data["created"], 2);
    // Its timeout holds there too.
    let err = client.call("sleepy", json!({})).await.unwrap_err();
    assert!(err.message().contains("timed out after 100ms"), "{err}");
}

#[tokio::test]
async fn a_required_task_refuses_a_client_without_tasks() {
    let client = client().await;
    let err = client
        .call("required_add", json!({"a": 1, "b": 2}))
        .await
        .unwrap_err();
    let CallError::Protocol { code, message } = &err else {
        panic!("not a protocol error: {err:?}");
    };
    assert_eq!(*code, -32021, "missing required client capability");
    assert!(message.contains("runs only as a task"), "{message}");
    assert!(
        message.contains("io.modelcontextprotocol/tasks"),
        "{message}"
    );
    let task = client
        .call_task("required_add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    let done = client
        .wait_task(task.id(), Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(done.result().unwrap().text(), "3");
}

#[tokio::test]
async fn a_task_call_with_bad_arguments_is_refused_on_the_call() {
    let client = client().await;
    let err = client
        .call_task("import_notes", json!({"count": "many"}))
        .await
        .unwrap_err();
    let CallError::Tool { kind, .. } = &err else {
        panic!("not an error result: {err:?}");
    };
    assert_eq!(
        *kind,
        toolsmith::error::ErrorKind::InvalidArguments,
        "{err}"
    );
    assert!(err.message().contains("count"), "{err}");
    // A tool that is no task answers a task call with its result.
    let err = client
        .call_task("search_notes", json!({"query": "x"}))
        .await
        .unwrap_err();
    assert!(err.message().contains("not a task answer"), "{err}");
}

#[tokio::test]
async fn tasks_are_advertised_and_unknown_ids_are_not_found() {
    let client = client().await;
    let err = client
        .task("0123456789abcdef0123456789abcdef")
        .await
        .unwrap_err();
    assert!(err.message().contains("task not found"), "{err}");
    let err = client.cancel_task("nope").await.unwrap_err();
    assert!(err.message().contains("task not found"), "{err}");
}

#[tokio::test]
async fn max_concurrency_bounds_the_runs_of_tasks_not_their_handles() {
    let client = client().await;
    let started = std::time::Instant::now();
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(
            client
                .call_task("one_at_a_time", json!({}))
                .await
                .unwrap()
                .id()
                .to_owned(),
        );
    }
    assert!(
        started.elapsed() < Duration::from_millis(200),
        "three handles at once"
    );
    for id in &ids {
        let done = client.wait_task(id, Duration::from_secs(10)).await.unwrap();
        assert_eq!(done.result().unwrap().text(), "done");
    }
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "one after another"
    );
    assert_eq!(MOST.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_task_still_running_when_serving_ends_is_failed_as_stopped() {
    use std::sync::Arc;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use toolsmith::task::{MemoryStore, STOPPED, TaskStore};

    let store = Arc::new(MemoryStore::new());
    // Served checked, as a binary serves: every tool's state is there.
    let server = Server::with_registry(toolsmith_tests::with_examples(module_path!()))
        .state(Notes::seeded())
        .state(toolsmith_examples::fetch::Fetcher::default())
        .task_store(store.clone());
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_end);
    let serving = tokio::spawn(server.serve_io(read, write));
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": tasks,
            "clientInfo": {"name": "t", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "import_notes", "arguments": {"count": 100, "pace_ms": 100}}}),
    ] {
        client_write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut id = None;
    while id.is_none() {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let frame: Value = serde_json::from_str(&line).unwrap();
        if frame["id"] == 2 {
            assert_eq!(frame["result"]["status"], "working", "{frame}");
            id = frame["result"]["taskId"].as_str().map(str::to_owned);
        }
    }
    let id = id.unwrap();
    // The client goes away: the session ends, and with it serving.
    drop(client_write);
    drop(lines);
    tokio::time::timeout(Duration::from_secs(20), serving)
        .await
        .expect("serving ends")
        .unwrap()
        .unwrap();
    let task = store.get(&id, 0).await.unwrap().expect("kept");
    assert_eq!(task.status, TaskStatus::Failed);
    assert_eq!(task.message.as_deref(), Some(STOPPED));
}

/// The message of a task call of import_notes refused past a cap (kind `refused`).
async fn refused_task(client: &Client) -> String {
    let err = client
        .call_task("import_notes", import(100, 50))
        .await
        .unwrap_err();
    let CallError::Tool { message, kind, .. } = err else {
        panic!("not a refusal: {err:?}");
    };
    assert_eq!(kind, toolsmith::error::ErrorKind::Refused, "{message}");
    message
}

#[tokio::test]
async fn tasks_past_the_callers_cap_are_refused_until_one_ends() {
    let server = Server::with_registry(toolsmith_tests::with_examples(module_path!()))
        .state(Notes::seeded())
        .max_tasks_per_caller(2);
    let client = Client::connect(server).await.expect("connects");
    let one = client
        .call_task("import_notes", import(100, 50))
        .await
        .unwrap();
    let _two = client
        .call_task("import_notes", import(100, 50))
        .await
        .unwrap();
    let message = refused_task(&client).await;
    assert!(
        message.contains("this caller has 2 tasks working"),
        "{message}"
    );
    assert!(message.contains("max_tasks_per_caller"), "{message}");
    // A cancelled task frees its slot.
    client.cancel_task(one.id()).await.unwrap();
    let mut started = None;
    for _ in 0..50 {
        match client.call_task("import_notes", import(1, 1)).await {
            Ok(task) => {
                started = Some(task);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    assert!(started.is_some(), "a slot was freed by the cancel");
}

#[tokio::test]
async fn tasks_past_the_servers_cap_are_refused() {
    let server = Server::with_registry(toolsmith_tests::with_examples(module_path!()))
        .state(Notes::seeded())
        .max_tasks(1);
    let client = Client::connect(server).await.expect("connects");
    let one = client
        .call_task("import_notes", import(100, 50))
        .await
        .unwrap();
    let message = refused_task(&client).await;
    assert!(
        message.contains("the server has 1 tasks working"),
        "{message}"
    );
    // An ordinary call is no task: it still runs.
    assert!(
        client
            .call("search_notes", json!({"query": "x"}))
            .await
            .is_ok()
    );
    client.cancel_task(one.id()).await.unwrap();
}
