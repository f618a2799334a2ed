use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, ErrorData};

use super::{AuthRefusal, Metrics, OutcomeLabel};
use crate::error::ErrorKind;

/// The value of the series `series` (name and labels, as rendered) in `text`.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map(|value| value.trim().parse().expect("a number"))
}

#[test]
fn calls_count_by_tool_and_outcome_and_an_unknown_tool_is_one_label() {
    let metrics = Metrics::new(
        [("search_notes".into(), None), ("delete_note".into(), None)],
        None,
    );
    // Calls over stdio: each one an MCP operation too.
    let op = super::Operation {
        method: "tools/call",
        transport: super::Transport::Pipe,
        version: Some("2025-11-25"),
        failure: super::Failure::None,
    };
    for _ in 0..3 {
        metrics
            .call_started()
            .finish("search_notes", OutcomeLabel::Ok, Some(op));
    }
    metrics
        .call_started()
        .finish("delete_note", OutcomeLabel::Refused, None);
    // Names a request makes up all land on one series.
    for name in ["nope", "../../etc", "x\"y"] {
        metrics
            .call_started()
            .finish(name, OutcomeLabel::ProtocolError, None);
    }
    let text = metrics.render();
    let calls = |labels: &str| value(&text, &format!("toolsmith_tool_calls_total{{{labels}}}"));
    assert_eq!(calls(r#"tool="search_notes",outcome="ok""#), Some(3.0));
    assert_eq!(calls(r#"tool="delete_note",outcome="refused""#), Some(1.0));
    assert_eq!(
        calls(r#"tool="unknown",outcome="protocol_error""#),
        Some(3.0)
    );
    assert!(!text.contains("nope") && !text.contains("etc"), "{text}");
    // Every call that came over a transport is in its tool's operation histogram (a call
    // without one, in-process, is not an MCP operation), and none is in flight any more.
    let series = r#"{mcp_method_name="tools/call",network_transport="pipe",gen_ai_tool_name="search_notes",mcp_protocol_version="2025-11-25""#;
    let count = format!("mcp_server_operation_duration_seconds_count{series}}}");
    assert_eq!(value(&text, &count), Some(3.0), "{text}");
    let bucket = format!("mcp_server_operation_duration_seconds_bucket{series},le=\"+Inf\"}}");
    assert_eq!(value(&text, &bucket), Some(3.0), "{text}");
    assert!(
        !text.contains(r#"gen_ai_tool_name="delete_note""#),
        "{text}"
    );
    assert_eq!(value(&text, "toolsmith_tool_calls_in_flight"), Some(0.0));
    assert!(text.contains("# HELP toolsmith_tool_calls_total Tool calls, by tool and outcome."));
    assert!(text.contains("# TYPE mcp_server_operation_duration_seconds histogram"));
}

#[test]
fn a_call_is_in_flight_until_its_timer_goes_even_when_it_is_dropped_unfinished() {
    let metrics = Metrics::new([("slow".into(), None)], None);
    let first = metrics.call_started();
    let second = metrics.call_started();
    assert_eq!(
        value(&metrics.render(), "toolsmith_tool_calls_in_flight"),
        Some(2.0)
    );
    first.finish("slow", OutcomeLabel::Ok, None);
    drop(first);
    // A cancelled call's future is dropped without an outcome.
    drop(second);
    assert_eq!(
        value(&metrics.render(), "toolsmith_tool_calls_in_flight"),
        Some(0.0)
    );
}

#[test]
fn statuses_refusals_confirmations_connections_and_sessions() {
    let metrics = Metrics::new([], None);
    for status in [200, 200, 401, 403, 404] {
        metrics.http_status(status);
    }
    // Out of range: ignored, never a panic.
    metrics.http_status(1000);
    metrics.auth_refused(AuthRefusal::NoToken);
    metrics.auth_refused(AuthRefusal::InsufficientScope);
    metrics.auth_refused(AuthRefusal::InsufficientScope);
    metrics.confirmation_asked();
    metrics.confirmation_asked();
    metrics.confirmation_answered(true);
    metrics.confirmation_answered(false);
    let connection = metrics.connection();
    let _other = metrics.connection();
    let sessions = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(1));
    let open = sessions.clone();
    metrics.count_sessions(move || Some(open.load(std::sync::atomic::Ordering::Relaxed)));
    let text = metrics.render();
    let at = |series: &str| value(&text, series);
    assert_eq!(
        at(r#"toolsmith_http_requests_total{status="200"}"#),
        Some(2.0)
    );
    assert_eq!(
        at(r#"toolsmith_http_requests_total{status="404"}"#),
        Some(1.0)
    );
    assert_eq!(
        at(r#"toolsmith_auth_refusals_total{reason="no_token"}"#),
        Some(1.0)
    );
    assert_eq!(
        at(r#"toolsmith_auth_refusals_total{reason="invalid_token"}"#),
        Some(0.0)
    );
    let scope = r#"toolsmith_auth_refusals_total{reason="insufficient_scope"}"#;
    assert_eq!(at(scope), Some(2.0));
    assert_eq!(at("toolsmith_confirmations_asked_total"), Some(2.0));
    let accepted = r#"toolsmith_confirmations_answered_total{answer="accepted"}"#;
    assert_eq!(at(accepted), Some(1.0));
    assert_eq!(at("toolsmith_http_connections_open"), Some(2.0));
    assert_eq!(at("toolsmith_sessions_open"), Some(1.0));
    drop(connection);
    sessions.store(0, std::sync::atomic::Ordering::Relaxed);
    let text = metrics.render();
    assert_eq!(value(&text, "toolsmith_http_connections_open"), Some(1.0));
    assert_eq!(value(&text, "toolsmith_sessions_open"), Some(0.0));
}

#[test]
fn an_outcome_is_read_from_the_answer() {
    let result = |kind: Option<ErrorKind>| {
        let answer: Result<CallToolResponse, ErrorData> = Ok(match kind {
            Some(kind) => crate::error::error_result(kind, "no".into()),
            None => CallToolResult::success(vec![ContentBlock::text("yes")]),
        }
        .into());
        OutcomeLabel::of(&answer)
    };
    assert_eq!(result(None), OutcomeLabel::Ok);
    assert_eq!(result(Some(ErrorKind::Tool)), OutcomeLabel::Tool);
    assert_eq!(
        result(Some(ErrorKind::InvalidArguments)),
        OutcomeLabel::InvalidArguments
    );
    assert_eq!(result(Some(ErrorKind::Failed)), OutcomeLabel::Failed);
    assert_eq!(result(Some(ErrorKind::Refused)), OutcomeLabel::Refused);
    assert_eq!(result(Some(ErrorKind::TimedOut)), OutcomeLabel::TimedOut);
    // An error result without a kind is the tool's own.
    let bare: Result<CallToolResponse, ErrorData> =
        Ok(CallToolResult::error(vec![ContentBlock::text("no")]).into());
    assert_eq!(OutcomeLabel::of(&bare), OutcomeLabel::Tool);
    let protocol = Err(ErrorData::invalid_params("unknown tool", None));
    assert_eq!(OutcomeLabel::of(&protocol), OutcomeLabel::ProtocolError);
}

#[test]
fn a_tool_added_while_serving_gets_its_own_series_and_a_made_up_name_does_not() {
    let known: super::Known = Box::new(|name| (name == "added_later").then_some(None));
    let metrics = Metrics::new([("search_notes".into(), None)], Some(known));
    for name in ["added_later", "added_later", "made_up"] {
        metrics.call_started().finish(name, OutcomeLabel::Ok, None);
    }
    let text = metrics.render();
    let calls = |labels: &str| value(&text, &format!("toolsmith_tool_calls_total{{{labels}}}"));
    assert_eq!(
        calls(r#"tool="added_later",outcome="ok""#),
        Some(2.0),
        "{text}"
    );
    assert_eq!(calls(r#"tool="unknown",outcome="ok""#), Some(1.0), "{text}");
    assert!(!text.contains("made_up"), "{text}");
}

#[test]
fn a_tool_with_a_category_has_it_as_a_label_and_one_without_has_none() {
    let metrics = Metrics::new(
        [
            ("gh_create_issue".into(), Some("github".into())),
            ("add".into(), None),
        ],
        None,
    );
    metrics
        .call_started()
        .finish("gh_create_issue", OutcomeLabel::Ok, None);
    metrics.call_started().finish("add", OutcomeLabel::Ok, None);
    let text = metrics.render();
    let calls = |labels: &str| value(&text, &format!("toolsmith_tool_calls_total{{{labels}}}"));
    assert_eq!(
        calls(r#"tool="gh_create_issue",outcome="ok",category="github""#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(calls(r#"tool="add",outcome="ok""#), Some(1.0), "{text}");
}

#[test]
fn a_programs_series_are_rendered_after_the_servers_and_may_not_take_its_names() {
    let metrics = Metrics::new([("search_notes".into(), None)], None);
    let series = super::Series::new();
    let opened = series.counter(
        "myapp_opened_total",
        "Opened, by backend.",
        &[("backend", "a")],
    );
    // Asked again: the same series.
    series
        .counter(
            "myapp_opened_total",
            "Opened, by backend.",
            &[("backend", "a")],
        )
        .increment(1);
    opened.increment(1);
    series.gauge("myapp_open", "Open now.", &[]).set(4.0);
    // Names the server records, or that Prometheus refuses: counted nowhere.
    series.counter(super::names::CALLS, "x", &[]).increment(7);
    series.gauge("mcp_server_mine", "x", &[]).set(7.0);
    series.counter("9lives", "x", &[]).increment(7);
    series.counter("my-app", "x", &[]).increment(7);
    metrics.render_also(series);
    metrics
        .call_started()
        .finish("search_notes", OutcomeLabel::Ok, None);
    let text = metrics.render();
    assert_eq!(
        value(&text, r#"myapp_opened_total{backend="a"}"#),
        Some(2.0)
    );
    assert_eq!(value(&text, "myapp_open"), Some(4.0));
    assert!(text.contains("# HELP myapp_open Open now."), "{text}");
    assert!(
        !text.contains("mcp_server_mine") && !text.contains("9lives") && !text.contains("my-app")
    );
    // The server's own series stay one family: a single TYPE line.
    assert_eq!(
        text.matches(&format!("# TYPE {} ", super::names::CALLS))
            .count(),
        1,
        "{text}"
    );
    assert_eq!(
        value(
            &text,
            r#"toolsmith_tool_calls_total{tool="search_notes",outcome="ok"}"#
        ),
        Some(1.0),
        "{text}"
    );
    // After the server's own.
    let mine = text.find("myapp_opened_total").unwrap();
    assert!(text.find(super::names::CALLS).unwrap() < mine);
}
