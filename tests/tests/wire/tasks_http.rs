//! Tasks through rmcp's own client: over stateless HTTP at 2026-07-28 (the capabilities in
//! each request's `_meta`), over stdio at 2025-11-25 (the extension declared in the
//! session's `initialize`), and with authorization, where a task belongs to the subject
//! that started it: another one is told it does not exist, and cannot cancel it.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, GetTaskResult, ProtocolVersion, TaskPayload, TaskStatus,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use toolsmith_tests::guarded::Guarded;
use toolsmith_tests::http::HttpServer;

type TasksClient = RunningService<RoleClient, ClientConfig>;

fn tasks_client() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::builder().enable_tasks().build(),
        rmcp::model::Implementation::new("toolsmith-tasks-test", "0"),
    )
}

fn notes() -> String {
    toolsmith_tests::example_binary("notes")
        .to_string_lossy()
        .into_owned()
}

/// rmcp's client at 2026-07-28 over HTTP (`server/discover`, no session), with `token`.
async fn over_http(url: &str, token: Option<&str>) -> TasksClient {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    if let Some(token) = token {
        config = config.auth_header(token.to_owned());
    }
    let mode = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    // rmcp's reqwest client has rustls without a provider here (toolsmith-gateway's).
    toolsmith_gateway::install_crypto_provider();
    tasks_client()
        .serve_with_lifecycle(StreamableHttpClientTransport::from_config(config), mode)
        .await
        .expect("connects at 2026-07-28")
}

fn import(count: u32, pace_ms: u64) -> CallToolRequestParams {
    let Value::Object(arguments) = json!({"count": count, "pace_ms": pace_ms}) else {
        unreachable!()
    };
    CallToolRequestParams::new("import_notes").with_arguments(arguments)
}

/// Starts import_notes as a task: its id.
async fn start(client: &TasksClient, count: u32, pace_ms: u64) -> String {
    match client.call_tool_once(import(count, pace_ms)).await.unwrap() {
        CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, TaskStatus::Working);
            assert!(created.task.ttl_ms.is_some() && created.task.poll_interval_ms.is_some());
            created.task.task_id
        }
        other => panic!("not a task: {other:?}"),
    }
}

async fn get(client: &TasksClient, id: &str) -> Result<GetTaskResult, ServiceError> {
    client.get_task(GetTaskParams::new(id)).await
}

/// Polls task `id` until it ended (10 s at most).
async fn ended(client: &TasksClient, id: &str) -> GetTaskResult {
    for _ in 0..200 {
        let task = get(client, id).await.unwrap();
        if task.task.task.status.is_terminal() {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} did not end within 10 s");
}

fn created(task: &GetTaskResult) -> Value {
    let TaskPayload::Completed { result } = &task.task.payload else {
        panic!("not completed: {task:?}");
    };
    result["structuredContent"]["created"].clone()
}

fn not_found(err: ServiceError) -> bool {
    matches!(err, ServiceError::McpError(ref e) if e.message.contains("task not found"))
}

#[tokio::test]
async fn rmcp_over_http_at_2026_runs_polls_and_cancels_a_task() {
    let server = HttpServer::start(&notes(), &[]).await;
    let client = over_http(&format!("http://{}{}", server.addr, server.path), None).await;
    let info = client.peer_info().expect("discovered");
    assert!(
        info.capabilities.supports_tasks(),
        "the server advertises tasks"
    );

    let id = start(&client, 3, 50).await;
    let done = ended(&client, &id).await;
    assert_eq!(done.task.task.status, TaskStatus::Completed);
    assert_eq!(created(&done), 3);

    let id = start(&client, 100, 50).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let working = get(&client, &id).await.unwrap();
    assert_eq!(working.task.task.status, TaskStatus::Working);
    // Answers to no outstanding question are acknowledged, and change nothing.
    let update = rmcp::model::UpdateTaskParams::new(&id, Default::default());
    client.update_task(update).await.unwrap();
    let still = get(&client, &id).await.unwrap();
    assert_eq!(still.task.task.status, TaskStatus::Working);
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    let cancelled = get(&client, &id).await.unwrap();
    assert_eq!(cancelled.task.task.status, TaskStatus::Cancelled);
    assert!(not_found(get(&client, "0000").await.unwrap_err()));
    let _ = client.cancel().await;
}

#[tokio::test]
async fn rmcp_over_stdio_at_2025_declares_tasks_in_initialize() {
    let command = tokio::process::Command::new(notes());
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let client = tasks_client().serve(transport).await.expect("initializes");
    let id = start(&client, 2, 20).await;
    let done = ended(&client, &id).await;
    assert_eq!(created(&done), 2);
    // A client without the extension gets the result itself.
    let plain = ().serve(
        TokioChildProcess::builder(tokio::process::Command::new(notes()))
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
            .0,
    );
    let plain = plain.await.unwrap();
    match plain.call_tool_once(import(2, 10)).await.unwrap() {
        CallToolResponse::Complete(result) => {
            assert_eq!(result.structured_content.unwrap()["created"], 2);
        }
        other => panic!("not an ordinary result: {other:?}"),
    }
    let _ = plain.cancel().await;
    let _ = client.cancel().await;
}

#[tokio::test]
async fn another_subject_is_told_a_task_does_not_exist() {
    let guarded = Guarded::start(&notes(), &[]).await;
    let url = guarded.resource.clone();
    let scopes = "tools:read tools:write";
    let alice = over_http(&url, Some(&guarded.token("alice", scopes))).await;
    let bob = over_http(&url, Some(&guarded.token("bob", scopes))).await;

    let id = start(&alice, 100, 50).await;
    assert_eq!(
        get(&alice, &id).await.unwrap().task.task.status,
        TaskStatus::Working
    );
    assert!(
        not_found(get(&bob, &id).await.unwrap_err()),
        "bob cannot see it"
    );
    let refused = bob
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap_err();
    assert!(not_found(refused), "bob cannot cancel it");
    assert_eq!(
        get(&alice, &id).await.unwrap().task.task.status,
        TaskStatus::Working,
        "bob's cancel changed nothing"
    );
    alice.cancel_task(CancelTaskParams::new(&id)).await.unwrap();
    assert_eq!(
        get(&alice, &id).await.unwrap().task.task.status,
        TaskStatus::Cancelled
    );
    let _ = alice.cancel().await;
    let _ = bob.cancel().await;
}

#[tokio::test]
async fn a_task_needs_the_scope_of_the_tool_that_made_it() {
    let guarded = Guarded::start(&notes(), &[]).await;
    let url = guarded.resource.clone();
    let alice = over_http(
        &url,
        Some(&guarded.token("alice", "tools:read tools:write")),
    )
    .await;
    let id = start(&alice, 100, 50).await;
    // The same subject, with a token that may not call import_notes.
    let profile = guarded.token("alice", "profile");
    for method in ["tasks/get", "tasks/cancel"] {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": {"taskId": id}});
        let refused = guarded.post_as(Some(&profile), &body).await;
        assert_eq!(refused.status, 403, "{method}: {refused:?}");
        let challenge = refused.header("www-authenticate").unwrap_or("");
        assert!(challenge.contains("insufficient_scope"), "{challenge}");
        assert!(challenge.contains("scope=\"tools:write\""), "{challenge}");
        assert!(refused.body.contains("-32003"), "{}", refused.body);
    }
    assert_eq!(
        get(&alice, &id).await.unwrap().task.task.status,
        TaskStatus::Working,
        "the refused cancel changed nothing"
    );
    alice.cancel_task(CancelTaskParams::new(&id)).await.unwrap();
    let _ = alice.cancel().await;
}
