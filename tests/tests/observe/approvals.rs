//! Who decided a confirmation, seen from outside the server: the log, the metrics and the
//! call's span of the asking binary with approval rules and the user at the client.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::BufReader;
use toolsmith_tests::raw::Raw;

use super::traces::{Receiver, SECRET, hex, summary, text, traceparent};

/// A confirmation's decision is told with who decided and how, never the arguments: a log
/// line on stderr, `toolsmith_approvals_total{approver, decision}` and the call's span
/// (`--approve rules=FILE,client`: the rules deny one call, the user approves another).
#[tokio::test]
async fn who_decided_a_confirmation_is_in_the_log_the_metrics_and_the_span() {
    use tokio::io::AsyncBufReadExt;
    use toolsmith_tests::asking::{accept, modern_call};

    let receiver = Receiver::start().await;
    let rules = std::env::temp_dir().join(format!("toolsmith-told-{}.toml", std::process::id()));
    std::fs::write(
        &rules,
        "[[rule]]\ntools = [\"remove\"]\narguments = { item = \"s3cr3t*\" }\ndecision = \"deny\"\n",
    )
    .unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_asking"));
    command
        .args([
            "serve",
            "--confirm",
            "destructive",
            "--metrics-addr",
            "127.0.0.1:0",
        ])
        .env(
            "TOOLSMITH_APPROVE",
            format!("rules={},client", rules.display()),
        )
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.endpoint)
        .env("OTEL_BSP_SCHEDULE_DELAY", "60000");
    let mut raw = Raw::spawn(command, std::process::Stdio::piped());
    let mut lines = BufReader::new(raw.child.stderr.take().unwrap()).lines();
    let addr = toolsmith_tests::asking::metrics_address(&mut lines).await;
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let kept = log.clone();
    let drained = tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            kept.lock().unwrap().push(line);
        }
    });

    let traced = |id: u64, item: &str, retry: Option<(&str, Value)>, trace: &str| {
        let mut call = modern_call(id, "remove", json!({ "item": item }), retry);
        call["params"]["_meta"]["traceparent"] =
            json!(traceparent(trace, "5555555555555555", true));
        call
    };
    let denied_trace = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
    let denied = raw.ask(&traced(1, SECRET, None, denied_trace)).await;
    assert_eq!(denied["result"]["isError"], true, "{denied}");
    let approved_trace = "ffffffffffffffffffffffffffffffff";
    let first = raw.ask(&traced(2, "milk", None, approved_trace)).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = Some((state.as_str(), json!({"confirm": accept()})));
    let ran = raw.ask(&traced(3, "milk", retry, approved_trace)).await;
    assert_eq!(ran["result"]["content"][0]["text"], "removed milk", "{ran}");

    let metrics = toolsmith_tests::http::request(&addr, "GET", "/metrics", &[], "").await;
    let decided = |approver: &str, decision: &str| {
        let series =
            format!(r#"toolsmith_approvals_total{{approver="{approver}",decision="{decision}"}} "#);
        metrics
            .body
            .lines()
            .find_map(|line| line.strip_prefix(&series))
            .map(|value| value.trim().to_owned())
    };
    assert_eq!(
        decided("rules", "denied").as_deref(),
        Some("1"),
        "{}",
        metrics.body
    );
    assert_eq!(
        decided("client", "approved").as_deref(),
        Some("1"),
        "{}",
        metrics.body
    );
    assert_eq!(decided("rules", "approved"), None, "{}", metrics.body);

    drop(raw.stdin.take());
    tokio::time::timeout(Duration::from_secs(20), raw.child.wait())
        .await
        .expect("the server ends when stdin closes")
        .unwrap();
    drained.await.unwrap();
    let log = log.lock().unwrap().join("\n");
    let told: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("confirmation decided"))
        .collect();
    assert_eq!(told.len(), 2, "{log}");
    assert!(
        told[0].contains("approver=\"rules\"") && told[0].contains("denied"),
        "{log}"
    );
    assert!(
        told[1].contains("approver=\"client\"") && told[1].contains("approved"),
        "{log}"
    );
    assert!(!log.contains(SECRET), "an argument was logged: {log}");

    let spans = receiver.spans();
    let span_of = |trace: &str| {
        spans
            .iter()
            .find(|s| s.name == "tools/call remove" && hex(&s.trace_id) == trace)
            .unwrap_or_else(|| panic!("no call span in {trace}: {:#?}", summary(&spans)))
    };
    let denied = span_of(denied_trace);
    assert_eq!(
        text(denied, "toolsmith.approval.approver").as_deref(),
        Some("rules")
    );
    assert_eq!(
        text(denied, "toolsmith.approval.decision").as_deref(),
        Some("denied")
    );
    let approved = spans
        .iter()
        .find(|s| {
            s.name == "tools/call remove"
                && hex(&s.trace_id) == approved_trace
                && text(s, "toolsmith.outcome").as_deref() == Some("ok")
        })
        .unwrap_or_else(|| panic!("no approved call span: {:#?}", summary(&spans)));
    assert_eq!(
        text(approved, "toolsmith.approval.approver").as_deref(),
        Some("client")
    );
    assert_eq!(
        text(approved, "toolsmith.approval.decision").as_deref(),
        Some("approved")
    );
    let exported = receiver.got.lock().unwrap().raw.clone();
    assert!(
        !String::from_utf8_lossy(&exported).contains(SECRET),
        "an argument was exported"
    );
    std::fs::remove_file(&rules).unwrap();
}

/// A call a remembered grant lets through is told at `info`, as every decision is: the
/// user's "don't ask again", then a call that runs on it.
#[tokio::test]
async fn a_call_a_grant_allows_is_told_in_the_log() {
    use tokio::io::AsyncBufReadExt;
    use toolsmith_tests::asking::{modern_call, text};

    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_asking"));
    command.env("TOOLSMITH_TEST_OFFER_REMEMBER_SECS", "3600");
    let mut raw = Raw::spawn(command, std::process::Stdio::piped());
    let mut lines = BufReader::new(raw.child.stderr.take().unwrap()).lines();
    let first = raw
        .ask(&modern_call(1, "remove", json!({"item": "x"}), None))
        .await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let remembered = json!({"action": "accept", "content": {"confirm": true, "remember": true}});
    let retry = Some((state.as_str(), json!({ "confirm": remembered })));
    let ran = raw
        .ask(&modern_call(2, "remove", json!({"item": "x"}), retry))
        .await;
    assert_eq!(text(&ran), "removed x", "{ran}");
    let granted = raw
        .ask(&modern_call(3, "remove", json!({"item": "y"}), None))
        .await;
    assert_eq!(text(&granted), "removed y", "{granted}");
    drop(raw.stdin.take());
    let mut log = String::new();
    let read = async {
        while let Ok(Some(line)) = lines.next_line().await {
            log.push_str(&line);
            log.push('\n');
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("the server ends when stdin closes");
    let told: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("confirmation decided"))
        .collect();
    assert_eq!(told.len(), 2, "{log}");
    assert!(told[0].contains("approver=\"client\""), "{log}");
    assert!(
        told[1].contains("INFO") && told[1].contains("approver=\"grant\""),
        "{log}"
    );
    assert!(told[1].contains("decision=\"approved\""), "{log}");
}
