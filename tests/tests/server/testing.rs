//! `toolsmith::testing`: the in-process client, every way a call fails, typed data, each
//! call's own notifications, pagination, both runtimes, isolated state, and the end of the
//! server when the client goes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolsmith::testing::{CallError, CallOptions, Client};
use toolsmith::{
    Hints, Progress, Server, State, ToolError, context::ClientLog, error::ErrorKind,
    server::Policy, tool, tool::ScopeNames,
};

#[derive(Serialize, Deserialize, JsonSchema, Debug, PartialEq)]
struct Pair {
    left: u32,
    right: String,
}

/// A pair.
#[tool(read_only, closed_world)]
fn pair(left: u32) -> Pair {
    Pair {
        left,
        right: left.to_string(),
    }
}

/// A number, wrapped as `{"result": n}`.
#[tool(read_only, closed_world)]
fn number(n: i64) -> i64 {
    n
}

/// Refuses.
#[tool(read_only, closed_world)]
fn refuse() -> Result<String, ToolError> {
    Err(ToolError::new("Not today."))
}

/// Fails with a secret.
#[tool(read_only, closed_world)]
fn secret() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("password=hunter2"))
}

/// Panics.
#[tool(read_only, closed_world)]
fn explode() -> u32 {
    panic!("boom")
}

/// Writes.
#[tool(destructive = false, closed_world)]
fn write(counter: State<AtomicU64>) -> u64 {
    counter.fetch_add(1, Ordering::SeqCst) + 1
}

/// Sleeps past its timeout.
#[tool(read_only, closed_world, timeout = "50ms")]
async fn sleepy(ms: u64) -> u64 {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

/// Waits a minute: a call a client gives up on long before it could answer.
#[tool(read_only, closed_world)]
async fn lingering() -> u64 {
    tokio::time::sleep(Duration::from_secs(60)).await;
    60
}

/// Reports progress and logs.
#[tool(read_only, closed_world)]
async fn chatty(steps: u32, progress: Progress, log: ClientLog) -> u32 {
    for step in 1..=steps {
        progress.report(f64::from(step), f64::from(steps), format!("step {step}"));
        log.info(format!("step {step}"));
    }
    steps
}

/// Sets a flag when the server that holds it is gone.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn server() -> Server {
    toolsmith_tests::server_of(module_path!())
        .state(AtomicU64::new(0))
        .state(DropFlag(Arc::new(AtomicBool::new(false))))
}

async fn client() -> Client {
    Client::connect(server()).await.expect("connects")
}

fn kind(err: &CallError) -> Option<ErrorKind> {
    match err {
        CallError::Tool { kind, .. } => Some(*kind),
        _ => None,
    }
}

#[tokio::test]
async fn every_kind_of_error_result_is_told_apart() {
    let client = client().await;
    let tool = client.call("refuse", json!({})).await.unwrap_err();
    assert_eq!(
        (kind(&tool), tool.message()),
        (Some(ErrorKind::Tool), "Not today.".into())
    );
    let invalid = client.call("pair", json!({})).await.unwrap_err();
    assert_eq!(kind(&invalid), Some(ErrorKind::InvalidArguments));
    assert!(
        invalid
            .message()
            .contains("missing required argument `left`"),
        "{invalid}"
    );
    let masked = client.call("secret", json!({})).await.unwrap_err();
    assert_eq!(kind(&masked), Some(ErrorKind::Failed));
    assert_eq!(masked.message(), "Error calling tool 'secret'");
    assert!(!masked.to_string().contains("hunter2"));
    let panicked = client.call("explode", json!({})).await.unwrap_err();
    assert_eq!(kind(&panicked), Some(ErrorKind::Failed));
    let timed_out = client
        .call("sleepy", json!({"ms": 2000}))
        .await
        .unwrap_err();
    assert_eq!(kind(&timed_out), Some(ErrorKind::TimedOut), "{timed_out}");
    let unknown = client.call("nope", json!({})).await.unwrap_err();
    assert!(
        matches!(unknown, CallError::Protocol { code: -32602, .. }),
        "{unknown}"
    );
    let raw = client.call_raw("refuse", json!({})).await.unwrap();
    assert!(raw.is_error());
    assert_eq!(raw.text(), "Not today.");
}

#[tokio::test]
async fn a_call_the_policy_refuses_is_refused() {
    let read_only = Policy::new().read_only(true);
    let client = Client::connect(server().policy(read_only)).await.unwrap();
    let refused = client.call("write", json!({})).await.unwrap_err();
    assert_eq!(kind(&refused), Some(ErrorKind::Refused), "{refused}");
    let names: Vec<String> = client
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(!names.contains(&"write".to_owned()), "{names:?}");
}

#[tokio::test]
async fn a_call_past_the_clients_timeout_is_cancelled() {
    let client = client().await;
    // A minute against 20 ms: no answer can come first, however slow the machine.
    let options = CallOptions::default().timeout(Duration::from_millis(20));
    let err = client
        .call_with("lingering", json!({}), options)
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::Timeout { .. }), "{err}");
    // The client still works, and the late answer went nowhere.
    let outcome = client.call("number", json!({"n": 3})).await.unwrap();
    assert_eq!(outcome.data::<i64>().unwrap(), 3);
}

#[tokio::test]
async fn data_is_typed_and_unwrapped_and_a_mismatch_names_its_path() {
    let client = client().await;
    let outcome = client.call("pair", json!({"left": 4})).await.unwrap();
    assert_eq!(
        outcome.data::<Pair>().unwrap(),
        Pair {
            left: 4,
            right: "4".into()
        }
    );
    assert_eq!(
        outcome.structured(),
        Some(&json!({"left": 4, "right": "4"}))
    );
    let number = client.call("number", json!({"n": 9})).await.unwrap();
    assert_eq!(number.structured(), Some(&json!({"result": 9})));
    assert_eq!(number.data::<i64>().unwrap(), 9, "unwrapped");
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Wrong {
        left: String,
    }
    let err = outcome.data::<Wrong>().unwrap_err();
    assert_eq!(
        (err.tool.as_str(), err.path.as_str()),
        ("pair", "left"),
        "{err}"
    );
}

#[tokio::test]
async fn each_outcome_holds_its_own_calls_notifications() {
    let client = client().await;
    let options = CallOptions::default().progress_token("a");
    let first = client
        .call_with("chatty", json!({"steps": 3}), options)
        .await
        .unwrap();
    let steps: Vec<f64> = first.progress().iter().map(|p| p.progress).collect();
    assert_eq!(steps, [1.0, 2.0, 3.0]);
    assert_eq!(first.logs().len(), 3);
    let second = client.call("chatty", json!({"steps": 2})).await.unwrap();
    assert!(second.progress().is_empty(), "no token, no progress");
    assert_eq!(second.logs().len(), 2, "never the first call's");
    let quiet = client.call("number", json!({"n": 1})).await.unwrap();
    assert!(quiet.logs().is_empty() && quiet.progress().is_empty());
}

#[tokio::test]
async fn every_tool_is_listed_across_pages() {
    let paged = Client::connect(server().page_size(2)).await.unwrap();
    let all = client().await.list_tools().await.unwrap();
    let listed = paged.list_tools().await.unwrap();
    assert_eq!(listed.len(), all.len());
    assert!(all.len() > 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_keep_their_own_state_on_a_multi_thread_runtime() {
    let (a, b) = (client().await, client().await);
    for _ in 0..3 {
        a.call("write", json!({})).await.unwrap();
    }
    let b_first = b.call("write", json!({})).await.unwrap();
    assert_eq!(b_first.data::<u64>().unwrap(), 1);
    let a_fourth = a.call("write", json!({})).await.unwrap();
    assert_eq!(a_fourth.data::<u64>().unwrap(), 4);
}

#[tokio::test]
async fn dropping_the_client_ends_its_server() {
    let flag = Arc::new(AtomicBool::new(false));
    let client = Client::connect(
        toolsmith_tests::server_of(module_path!())
            .state(AtomicU64::new(0))
            .state(DropFlag(flag.clone())),
    )
    .await
    .unwrap();
    client.call("number", json!({"n": 1})).await.unwrap();
    assert!(!flag.load(Ordering::SeqCst));
    drop(client);
    for _ in 0..100 {
        if flag.load(Ordering::SeqCst) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the server still holds its state");
}

#[tokio::test]
async fn a_missing_state_is_an_error_of_the_call_not_of_connect() {
    // `write` needs `State<AtomicU64>`, which this server lacks: other tools still work.
    let client = Client::connect(toolsmith_tests::server_of(module_path!()))
        .await
        .expect("connects");
    let n = client.call("number", json!({"n": 3})).await.unwrap();
    assert_eq!(n.data::<i64>().unwrap(), 3);
    let err = client.call("write", json!({})).await.unwrap_err();
    assert_eq!(kind(&err), Some(ErrorKind::Failed), "{err}");
    assert!(
        err.message()
            .contains("`State<core::sync::atomic::AtomicU64>`"),
        "{err}"
    );
    assert!(err.message().contains(".state(value)"), "{err}");
}

#[tokio::test]
async fn tools_shows_hints_and_scopes_in_toolsmiths_terms() {
    let names = ScopeNames::new("notes.read", "notes.write", "notes.admin");
    let client = Client::connect(server().scope_names(names)).await.unwrap();
    let tools = client.tools().await.unwrap();
    let rmcp_list = client.list_tools().await.unwrap();
    assert_eq!(
        tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        rmcp_list
            .iter()
            .map(|t| t.name.as_ref())
            .collect::<Vec<_>>()
    );
    let tool = |name: &str| tools.iter().find(|t| t.name == name).unwrap();
    let write = tool("write");
    assert_eq!(
        write.hints,
        Hints {
            read_only: false,
            destructive: false,
            idempotent: false,
            open_world: false
        }
    );
    assert_eq!(write.scopes, ["notes.write"]);
    assert_eq!(write.description.as_deref(), Some("Writes."));
    assert_eq!(tool("pair").hints, Hints::READ_ONLY.closed_world());
    assert_eq!(tool("pair").scopes, ["notes.read"]);
    assert_eq!(tool("pair").title, None);
    // What the registry declares is what the client is told.
    let registry = toolsmith_tests::declared_in(module_path!());
    for listed in &tools {
        let declared = registry.get(&listed.name).unwrap();
        assert_eq!(listed.hints, declared.hints(), "{}", listed.name);
        assert_eq!(listed.category.as_deref(), declared.category());
        assert_eq!(listed.tags, declared.tags());
    }
    // Under a read-only policy, only read-only tools are listed.
    let read_only = Policy::new().read_only(true);
    let client = Client::connect(server().policy(read_only)).await.unwrap();
    let tools = client.tools().await.unwrap();
    assert!(tools.iter().all(|t| t.hints.read_only && t.name != "write"));
    assert!(tools.iter().all(|t| t.scopes == ["tools:read"]));
}
