//! What passes through besides a call's result: resources, templates, prompts and their
//! completions; progress, logs and cancellation; the upstream's own questions.

use serde_json::json;
use toolsmith::testing::{CallError, CallOptions, Client};
use toolsmith::{Hints, Server, ToolDescription};
use toolsmith_gateway::Upstream;

use super::{notes, served_over_http};

#[tokio::test]
async fn an_upstreams_resources_templates_and_prompts_pass_through() {
    let mounted = notes().connect().await.unwrap();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
    // Resources keep their URIs; their names and the prompts take the prefix.
    let resources = client.list_resources().await.unwrap();
    let index = resources.iter().find(|r| r.uri == "notes://index").unwrap();
    assert_eq!(index.name, "notes_note_index");
    let templates = client.list_resource_templates().await.unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "notes://{note_id}"),
        "{templates:?}"
    );
    let read = client.read_resource("notes://1").await.unwrap();
    let note: serde_json::Value = serde_json::from_str(&read.text()).unwrap();
    assert_eq!(note["id"], 1, "{note}");
    // A URI the upstream has no resource at: "not found", as from the upstream itself.
    let missing = client.read_resource("notes://999").await.unwrap_err();
    assert!(missing.message().contains("not found"), "{missing:?}");

    let prompts = client.list_prompts().await.unwrap();
    assert!(
        prompts.iter().any(|p| p.name == "notes_summarize_notes"),
        "{prompts:?}"
    );
    let summary = client
        .get_prompt("notes_summarize_notes", json!({"tag": "work"}))
        .await
        .unwrap();
    assert!(!summary.text().is_empty());
}

// Several worker threads: the order notifications are handled in is then up to the scheduler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(deprecated)] // MCP logging: deprecated in rmcp (SEP-2577), still in 2025-11-25.
async fn an_upstreams_progress_and_logs_reach_the_client_and_a_cancel_reaches_the_upstream() {
    let fixture = env!("CARGO_BIN_EXE_fixture_server");
    let fx = Upstream::stdio("fx", fixture)
        .env("TOOLSMITH_LOG", "off")
        .connect()
        .await
        .unwrap();
    let client = Client::connect(Server::with_registry(fx.registry().unwrap()))
        .await
        .unwrap();

    // The upstream's progress comes under the client's own token, its logs as the client's.
    let options = CallOptions::default().progress_token("mine");
    let outcome = client
        .call_with("fx_steps", json!({"steps": 3}), options)
        .await
        .unwrap();
    assert_eq!(outcome.text(), "3");
    let progress: Vec<_> = outcome
        .progress()
        .iter()
        .map(|p| {
            (
                p.progress_token.0.to_string(),
                p.progress,
                p.total,
                p.message.clone(),
            )
        })
        .collect();
    let step = |n: f64| ("mine".to_owned(), n, Some(3.0), Some(format!("step {n}")));
    assert_eq!(progress, [step(1.0), step(2.0), step(3.0)]);
    let logs: Vec<_> = outcome.logs().iter().map(|l| l.data.clone()).collect();
    assert_eq!(
        logs,
        [
            json!("info message"),
            json!("warning message"),
            json!("error message")
        ]
    );

    // A burst of reports reaches the client as sent: every one, in order, before the answer.
    let options = CallOptions::default().progress_token("burst");
    let outcome = client
        .call_with("fx_steps_sync", json!({"steps": 300}), options)
        .await
        .unwrap();
    let done: Vec<f64> = outcome.progress().iter().map(|p| p.progress).collect();
    assert_eq!(done, (1..=300).map(f64::from).collect::<Vec<_>>());

    // A call the client gives up on is cancelled at the upstream (the tool sees it).
    let options = CallOptions::default().timeout(std::time::Duration::from_millis(300));
    let gave_up = client
        .call_with("fx_slow", json!({"ms": 30000}), options)
        .await
        .unwrap_err();
    assert!(matches!(gave_up, CallError::Timeout { .. }), "{gave_up:?}");
    let mut seen = String::new();
    for _ in 0..50 {
        seen = client
            .call("fx_cancellations", json!({}))
            .await
            .unwrap()
            .text();
        if seen == "1" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(seen, "1", "the upstream's tool saw the cancel");
}

#[tokio::test]
async fn an_upstreams_own_confirmation_is_put_to_the_client_and_its_answer_decides() {
    use std::sync::{Arc, Mutex};
    use toolsmith::testing::Answer;
    // The notes server asks before a delete (2026-07-28: an `input_required` answer); no
    // override: the gateway asks nothing of its own, it passes the upstream's question on.
    let mounted = notes().connect().await.unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap()
        .on_confirm(move |question| {
            seen.lock().unwrap().push(question.message.clone());
            if question.message.contains('1') {
                Answer::Accept
            } else {
                Answer::Decline
            }
        });
    let declined = client
        .call("notes_delete_note", json!({"note_id": 2}))
        .await
        .unwrap_err();
    assert!(declined.message().contains("declined"), "{declined:?}");
    let deleted = client
        .call("notes_delete_note", json!({"note_id": 1}))
        .await
        .unwrap();
    assert!(deleted.text().contains("deleted"), "{}", deleted.text());
    assert_eq!(
        *asked.lock().unwrap(),
        ["Delete note 2?", "Delete note 1?"],
        "the upstream's own words, once per call"
    );
    // What the answers decided, at the upstream: note 2 is still there, note 1 is gone.
    let kept = client.read_resource("notes://2").await;
    assert!(kept.is_ok(), "{kept:?}");
    let gone = client.read_resource("notes://1").await;
    assert!(gone.is_err(), "{gone:?}");
}

/// A tool that confirms every call (the upstream's own question), and counts the calls run.
struct Wipe(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl toolsmith::Tool for Wipe {
    fn describe(&self) -> ToolDescription {
        let schema = json!({"type": "object"}).as_object().cloned().unwrap();
        ToolDescription::new(
            "wipe",
            "Wipe the scratch space.",
            schema,
            Hints::DESTRUCTIVE.closed_world(),
        )
        .with_confirms(true)
    }
    fn call(
        &self,
        _: toolsmith::rmcp::model::JsonObject,
        _: &toolsmith::CallContext,
    ) -> toolsmith::tool::ToolFuture {
        let runs = self.0.clone();
        Box::pin(async move {
            runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(toolsmith::tool::ToolOutput::new().text("wiped"))
        })
    }
}

#[tokio::test]
async fn an_http_upstreams_input_required_question_is_answered_by_the_client() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use toolsmith::testing::Answer;
    // Over stateless HTTP (2026-07-28) the upstream asks with an `input_required` answer: the
    // gateway puts the question to its client and sends the call again with the answer.
    let runs = Arc::new(AtomicUsize::new(0));
    let upstream = Server::with_registry(
        toolsmith::Registry::new()
            .with_tool(Wipe(runs.clone()))
            .unwrap(),
    );
    let addr = served_over_http(upstream).await;
    let url = format!("http://{addr}/mcp");
    let mounted = Upstream::http("scratch", &url)
        .discover(true)
        .connect()
        .await
        .unwrap();
    let answer = Arc::new(Mutex::new((Vec::new(), Answer::Decline)));
    let seen = answer.clone();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap()
        .on_confirm(move |question| {
            let mut seen = seen.lock().unwrap();
            seen.0.push(question.message.clone());
            seen.1
        });
    let declined = client.call("scratch_wipe", json!({})).await.unwrap_err();
    assert!(declined.message().contains("declined"), "{declined:?}");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "declined: never run");
    answer.lock().unwrap().1 = Answer::Accept;
    let wiped = client.call("scratch_wipe", json!({})).await.unwrap();
    assert_eq!(wiped.text(), "wiped");
    assert_eq!(runs.load(Ordering::SeqCst), 1, "run once");
    let asked = answer.lock().unwrap().0.clone();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked.iter().all(|q| q.contains("wipe")), "{asked:?}");
}

#[tokio::test]
async fn an_upstreams_completions_pass_through_under_the_prefix() {
    use toolsmith::testing::Complete;
    let mounted = notes().connect().await.unwrap();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
    // A template keeps its URI; a prompt is completed under its prefixed name.
    let ids = client
        .complete(Complete::resource("notes://{note_id}", "note_id", "2"))
        .await
        .unwrap();
    assert_eq!(ids.values, ["2"]);
    let tags = client
        .complete(Complete::prompt("notes_summarize_notes", "tag", "W"))
        .await
        .unwrap();
    assert_eq!(tags.values, ["work"]);
    let other = client
        .complete(Complete::prompt("notes_summarize_notes", "nope", ""))
        .await;
    assert!(
        other.is_ok_and(|c| c.values.is_empty()),
        "an argument the prompt lacks: none"
    );
}

/// A tool that runs as a task: `report` may (the upstream then speaks the tasks extension),
/// `archive` only as one (its server refuses a client without the extension).
struct Job(toolsmith::tool::TaskSupport);

impl toolsmith::Tool for Job {
    fn describe(&self) -> ToolDescription {
        let name = match self.0 {
            toolsmith::tool::TaskSupport::Required => "archive",
            _ => "report",
        };
        let schema = json!({"type": "object"}).as_object().cloned().unwrap();
        ToolDescription::new(
            name,
            "Write the quarterly report, or archive last year's notes.",
            schema,
            Hints::READ_ONLY.closed_world(),
        )
        .with_task(self.0)
    }
    fn call(
        &self,
        _: toolsmith::rmcp::model::JsonObject,
        _: &toolsmith::CallContext,
    ) -> toolsmith::tool::ToolFuture {
        let said = match self.0 {
            toolsmith::tool::TaskSupport::Required => "archived",
            _ => "report written",
        };
        Box::pin(async move {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            Ok(toolsmith::tool::ToolOutput::new().text(said))
        })
    }
}

#[tokio::test]
async fn an_upstream_that_speaks_tasks_has_its_tools_run_as_tasks_at_the_gateway() {
    let upstream = Server::with_registry(
        toolsmith::Registry::new()
            .with_tool(Job(toolsmith::tool::TaskSupport::Optional))
            .unwrap()
            .with_tool(Job(toolsmith::tool::TaskSupport::Required))
            .unwrap(),
    );
    let addr = served_over_http(upstream).await;
    // 2026-07-28: each request declares the client's capabilities (a stateless server
    // remembers no session's).
    let mounted = Upstream::http("up", format!("http://{addr}/mcp"))
        .discover(true)
        .connect()
        .await
        .unwrap();
    let registry = mounted.registry().unwrap();
    assert_eq!(
        registry.get("up_report").unwrap().task(),
        toolsmith::tool::TaskSupport::Optional,
        "the upstream speaks tasks: so do its tools at the gateway"
    );
    let client = Client::connect(Server::with_registry(registry))
        .await
        .unwrap();
    let task = client.call_task("up_report", json!({})).await.unwrap();
    let done = client
        .wait_task(task.id(), std::time::Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(
        done.result().map(|r| r.text()).as_deref(),
        Some("report written")
    );
    // A tool the upstream runs only as a task: the gateway declares the extension, gets the
    // upstream's task and follows it to its end, for an ordinary call as for a task.
    let archived = client.call("up_archive", json!({})).await.unwrap();
    assert_eq!(archived.text(), "archived");
    let task = client.call_task("up_archive", json!({})).await.unwrap();
    let done = client
        .wait_task(task.id(), std::time::Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(done.result().map(|r| r.text()).as_deref(), Some("archived"));

    // One that does not (no tool of it runs as a task): its tools never do at the gateway.
    let plain = Server::with_registry(
        toolsmith::Registry::new()
            .with_tool(Wipe(Default::default()))
            .unwrap(),
    );
    let addr = served_over_http(plain).await;
    let plain = Upstream::http("plain", format!("http://{addr}/mcp"))
        .connect()
        .await
        .unwrap();
    let registry = plain.registry().unwrap();
    assert_eq!(
        registry.get("plain_wipe").unwrap().task(),
        toolsmith::tool::TaskSupport::Never
    );
}
