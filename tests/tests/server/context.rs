//! Context parameters over a real client and real stdio (the fixture server binary):
//! progress in order, cancellation, timeouts, client logging with setLevel, state.

#![allow(deprecated)] // MCP logging: deprecated in rmcp (SEP-2577), still in 2025-11-25.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, LoggingLevel,
    LoggingMessageNotificationParam, NumberOrString, ProgressNotificationParam, ProgressToken,
    RequestMetaObject, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolsmith_tests::{call, text};

/// A client that records the notifications it receives.
#[derive(Clone, Default)]
struct Recorder {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    logs: Arc<Mutex<Vec<LoggingMessageNotificationParam>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params);
    }
}

async fn fixture(recorder: Recorder) -> RunningService<RoleClient, Recorder> {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_fixture_server"));
    recorder
        .serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

fn with_progress(name: &'static str, args: Value, token: i64) -> CallToolRequestParams {
    let mut params =
        CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone());
    params.meta = Some(RequestMetaObject::with_progress_token(ProgressToken(
        NumberOrString::Number(token),
    )));
    params
}

#[tokio::test]
async fn progress_arrives_in_order_before_the_result() {
    let recorder = Recorder::default();
    let client = fixture(recorder.clone()).await;
    for (tool, token) in [("steps", 7), ("steps_sync", 8)] {
        recorder.progress.lock().unwrap().clear();
        let result = client
            .call_tool(with_progress(tool, json!({"steps": 25}), token))
            .await
            .unwrap();
        assert_eq!(result.structured_content.unwrap(), json!({"result": 25}));
        let progress = recorder.progress.lock().unwrap().clone();
        let done: Vec<f64> = progress.iter().map(|p| p.progress).collect();
        assert_eq!(
            done,
            (1..=25).map(f64::from).collect::<Vec<_>>(),
            "{tool}: all, in order, before the result"
        );
        let first = &progress[0].progress_token;
        assert!(
            progress.iter().all(|p| &p.progress_token == first),
            "one token per call"
        );
        assert_eq!(progress[0].total, Some(25.0));
        assert_eq!(progress[24].message.as_deref(), Some("step 25"));
    }
    // (rmcp's client always sends a progressToken; tests/chaos.rs checks that a request
    // without one gets no progress.)
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn client_log_honours_set_level() {
    let recorder = Recorder::default();
    let client = fixture(recorder.clone()).await;
    call(&client, "steps", json!({"steps": 0})).await.unwrap();
    let levels = |r: &Recorder| {
        r.logs
            .lock()
            .unwrap()
            .iter()
            .map(|l| (l.level, l.data.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        levels(&recorder),
        [
            (LoggingLevel::Info, json!("info message")),
            (LoggingLevel::Warning, json!("warning message")),
            (LoggingLevel::Error, json!("error message")),
        ],
        "default level is info"
    );
    assert_eq!(
        recorder.logs.lock().unwrap()[0].logger.as_deref(),
        Some("steps")
    );

    recorder.logs.lock().unwrap().clear();
    client
        .peer()
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .unwrap();
    call(&client, "steps", json!({"steps": 0})).await.unwrap();
    let kept: Vec<LoggingLevel> = levels(&recorder).into_iter().map(|(l, _)| l).collect();
    assert_eq!(kept, [LoggingLevel::Warning, LoggingLevel::Error]);

    recorder.logs.lock().unwrap().clear();
    client
        .peer()
        .set_level(SetLevelRequestParams::new(LoggingLevel::Debug))
        .await
        .unwrap();
    call(&client, "steps", json!({"steps": 0})).await.unwrap();
    assert_eq!(levels(&recorder).len(), 4);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_call_stops_and_the_server_moves_on() {
    let client = fixture(Recorder::default()).await;
    for tool in ["slow", "slow_sync"] {
        let before = call(&client, "cancellations", json!({})).await.unwrap();
        let before = before.structured_content.unwrap()["result"]
            .as_u64()
            .unwrap();
        let params = CallToolRequestParams::new(tool)
            .with_arguments(json!({"ms": 30_000}).as_object().unwrap().clone());
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = client
            .peer()
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        handle
            .cancel(Some("user pressed stop".into()))
            .await
            .unwrap();

        // The tool observes the cancellation, and the server keeps serving.
        let mut seen = before;
        for _ in 0..100 {
            let now = call(&client, "cancellations", json!({})).await.unwrap();
            seen = now.structured_content.unwrap()["result"].as_u64().unwrap();
            if seen > before {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(seen, before + 1, "{tool} saw its cancellation");
    }
    let next = call(&client, "add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(next.structured_content.unwrap(), json!({"result": 5}));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn timeouts_give_an_exact_error_and_cancel_the_tool() {
    let client = fixture(Recorder::default()).await;
    let timed = call(&client, "timed", json!({"ms": 10_000})).await.unwrap();
    assert_eq!(timed.is_error, Some(true));
    assert_eq!(text(&timed), "tool 'timed' timed out after 100ms");
    let quick = call(&client, "timed", json!({"ms": 1})).await.unwrap();
    assert_eq!(quick.structured_content.unwrap(), json!({"result": 1}));

    let sync = call(&client, "timed_sync", json!({})).await.unwrap();
    assert_eq!(text(&sync), "tool 'timed_sync' timed out after 50ms");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn state_is_shared_across_calls() {
    let client = fixture(Recorder::default()).await;
    for expected in 1..=3 {
        let counted = call(&client, "count", json!({})).await.unwrap();
        assert_eq!(
            counted.structured_content.unwrap(),
            json!({"result": expected})
        );
    }
    let tools = client.list_all_tools().await.unwrap();
    let count = tools.iter().find(|t| t.name == "count").unwrap();
    assert_eq!(
        count.input_schema["properties"],
        json!({}),
        "context parameters are not arguments"
    );
    client.cancel().await.unwrap();
}

/// The state of `needy`, which `missing_state_stops_startup_naming_tool_and_type` does not
/// register (the in-process servers below do, to start).
#[derive(Debug)]
struct Unregistered;

/// Needs a state nobody registers.
#[toolsmith::tool(read_only)]
fn needy(value: toolsmith::State<Unregistered>) -> String {
    format!("{:?}", *value)
}

#[test]
fn missing_state_stops_startup_naming_tool_and_type() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (_client, server) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(server);
    let err = runtime
        .block_on(toolsmith_tests::server_of(module_path!()).serve_io(read, write))
        .unwrap_err();
    let message = err.to_string();
    assert!(message.contains("'needy'"), "{message}");
    assert!(
        message.contains("State<server::context::Unregistered>"),
        "{message}"
    );
    assert!(matches!(err, toolsmith::Error::MissingState { .. }));
}

/// A type of the program's own that happens to share a context type's name: an argument
/// like any other.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Progress {
    done: u32,
    total: u32,
}

/// How far a job is, in percent.
#[toolsmith::tool(read_only, closed_world)]
fn percent_done(progress: Progress, cancel: toolsmith::context::Cancellation) -> String {
    let _ = cancel;
    format!("{}%", progress.done * 100 / progress.total)
}

#[tokio::test]
async fn a_type_of_yours_named_progress_is_an_argument() {
    let server = toolsmith_tests::server_of(module_path!()).state(Unregistered);
    let client = toolsmith::testing::Client::connect(server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let tool = tools.iter().find(|t| t.name == "percent_done").unwrap();
    let schema = Value::Object((*tool.input_schema).clone());
    assert_eq!(schema["required"], json!(["progress"]));
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        ["progress"],
        "`cancel` is context"
    );
    assert_eq!(
        properties["progress"]["required"],
        json!(["done", "total"]),
        "{schema}"
    );

    let outcome = client
        .call("percent_done", json!({"progress": {"done": 1, "total": 4}}))
        .await
        .unwrap();
    assert_eq!(outcome.text(), "25%");

    let err = client
        .call(
            "percent_done",
            json!({"progress": {"done": 1}, "cancel": true}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Invalid arguments for tool 'percent_done': argument `progress` is invalid (expected an object): missing field `total`; unknown argument `cancel` (this tool takes `progress`)"
    );
}
