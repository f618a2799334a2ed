//! `GET /metrics` (feature `metrics`): calls counted by tool and outcome on both HTTP paths,
//! HTTP statuses, connections and sessions; the authorization rules of the endpoint and its
//! refusal counters; a stdio server's `--metrics-addr`, with the confirmations it asked.

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use toolsmith_tests::asking::{accept, modern_call};
use toolsmith_tests::guarded::Guarded;
use toolsmith_tests::http::{HttpServer, Response, request};
use toolsmith_tests::raw::Raw;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const ASKING: &str = env!("CARGO_BIN_EXE_asking");

/// The value of the series `series` (its name and labels, as rendered), if present.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map(|value| value.trim().parse().expect("a number"))
}

fn calls(text: &str, tool: &str, outcome: &str) -> Option<f64> {
    let series = format!(r#"toolsmith_tool_calls_total{{tool="{tool}",outcome="{outcome}"}}"#);
    value(text, &series)
}

async fn scrape(addr: &str, headers: &[(&str, &str)]) -> Response {
    request(addr, "GET", "/metrics", headers, "").await
}

fn tool_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

/// Every outcome a call can have is counted under its tool, on the fast path and on rmcp's
/// path alike; a name the registry lacks is `unknown`, never the name sent.
#[tokio::test]
async fn calls_are_counted_by_tool_and_outcome_on_both_http_paths() {
    for env in [&[][..], &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")][..]] {
        let server =
            HttpServer::start_with(FIXTURE, &["--rate-limit", "destructive=1/s"], env).await;
        let script = [
            tool_call(1, "add", json!({"a": 1, "b": 2})),
            tool_call(2, "add", json!({"a": 3, "b": 4})),
            tool_call(3, "add", json!({"a": "one"})),
            tool_call(4, "refusing", json!({})),
            tool_call(5, "failing", json!({})),
            tool_call(6, "timed", json!({"ms": 2000})),
            tool_call(7, "no_such_tool_x", json!({})),
            tool_call(8, "wipe", json!({"area": "a"})),
            tool_call(9, "wipe", json!({"area": "b"})),
        ];
        for call in &script {
            let answer = server.post(call, &[VERSION]).await;
            assert_eq!(answer.status, 200, "{env:?} {call}: {answer:?}");
        }
        let metrics = scrape(&server.addr, &[]).await;
        assert_eq!(metrics.status, 200, "{env:?}: {metrics:?}");
        let kind = metrics.header("content-type").unwrap_or("");
        assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
        let text = &metrics.body;
        assert_eq!(calls(text, "add", "ok"), Some(2.0), "{env:?}\n{text}");
        assert_eq!(calls(text, "add", "invalid_arguments"), Some(1.0), "{text}");
        assert_eq!(calls(text, "refusing", "tool_error"), Some(1.0), "{text}");
        assert_eq!(calls(text, "failing", "failed"), Some(1.0), "{text}");
        assert_eq!(calls(text, "timed", "timed_out"), Some(1.0), "{text}");
        assert_eq!(
            calls(text, "unknown", "protocol_error"),
            Some(1.0),
            "{text}"
        );
        // The rate limit (a layer) refused the second destructive call.
        assert_eq!(calls(text, "wipe", "ok"), Some(1.0), "{text}");
        assert_eq!(calls(text, "wipe", "refused"), Some(1.0), "{text}");
        assert!(!text.contains("no_such_tool_x"), "{text}");
        // Every call of `add` is timed as an MCP operation (two results, one error result
        // for its arguments).
        let add = |rest: &str| {
            format!(
                r#"{{mcp_method_name="tools/call",network_transport="tcp",gen_ai_tool_name="add",mcp_protocol_version="2025-11-25"{rest}}}"#
            )
        };
        let count = format!("mcp_server_operation_duration_seconds_count{}", add(""));
        assert_eq!(value(text, &count), Some(2.0), "{text}");
        let failed = add(r#",error_type="tool_error""#);
        let count = format!("mcp_server_operation_duration_seconds_count{failed}");
        assert_eq!(value(text, &count), Some(1.0), "{text}");
        // `timed` ran out at its timeout (100 ms), not sooner.
        let timed = |le: &str| {
            format!(
                r#"mcp_server_operation_duration_seconds_bucket{{mcp_method_name="tools/call",network_transport="tcp",gen_ai_tool_name="timed",mcp_protocol_version="2025-11-25",error_type="tool_error",le="{le}"}}"#
            )
        };
        assert_eq!(value(text, &timed("0.05")), Some(0.0), "{text}");
        assert_eq!(value(text, &timed("+Inf")), Some(1.0), "{text}");
        assert_eq!(value(text, "toolsmith_tool_calls_in_flight"), Some(0.0));
        // The nine calls, each on its own connection, answered 200; the scrape is still
        // being answered on its own open connection.
        let ok = value(text, r#"toolsmith_http_requests_total{status="200"}"#);
        assert!(ok >= Some(9.0), "{text}");
        assert!(
            value(text, "toolsmith_http_connections_open") >= Some(1.0),
            "{text}"
        );
    }
}

/// Statuses other than 200 are counted by code, and open sessions are counted.
#[tokio::test]
async fn statuses_and_sessions_are_counted() {
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "metrics-test", "version": "0"}}});
    let opened = server.post(&init, &[]).await;
    assert_eq!(opened.status, 200, "{opened:?}");
    assert!(opened.header("mcp-session-id").is_some(), "{opened:?}");
    // A call without its session is refused; a path that is no endpoint is 404.
    let stray = server
        .post(&tool_call(1, "add", json!({"a": 1, "b": 1})), &[VERSION])
        .await;
    assert!(stray.status >= 400 && stray.status != 404, "{stray:?}");
    let missing = request(&server.addr, "GET", "/nowhere", &[], "").await;
    assert_eq!(missing.status, 404);
    let text = scrape(&server.addr, &[]).await.body;
    assert_eq!(value(&text, "toolsmith_sessions_open"), Some(1.0), "{text}");
    let status = |code: &str| {
        value(
            &text,
            &format!(r#"toolsmith_http_requests_total{{status="{code}"}}"#),
        )
    };
    assert_eq!(status(&stray.status.to_string()), Some(1.0), "{text}");
    assert_eq!(status("404"), Some(1.0), "{text}");
    assert_eq!(status("200"), Some(1.0), "{text}");
}

/// With authorization, `/metrics` is not on the public endpoint unless a scope is given;
/// with one, it needs a valid token that grants it, and each refusal is counted by reason.
#[tokio::test]
async fn an_authorized_server_serves_metrics_only_to_the_metrics_scope() {
    let hidden = Guarded::start(FIXTURE, &[]).await;
    let token = hidden.token(
        "alice",
        "tools:read tools:write tools:destructive metrics:read",
    );
    let bearer = format!("Bearer {token}");
    let answer = scrape(&hidden.server.addr, &[("Authorization", &bearer)]).await;
    assert_eq!(answer.status, 404, "served by default: {answer:?}");

    let guarded = Guarded::start(FIXTURE, &["--metrics-scope", "metrics:read"]).await;
    let addr = guarded.server.addr.clone();
    let none = scrape(&addr, &[]).await;
    assert_eq!(none.status, 401, "{none:?}");
    let forged = scrape(&addr, &[("Authorization", "Bearer not.a.token")]).await;
    assert_eq!(forged.status, 401, "{forged:?}");
    let reader = format!("Bearer {}", guarded.token("bob", "tools:read"));
    let short = scrape(&addr, &[("Authorization", &reader)]).await;
    assert_eq!(short.status, 403, "{short:?}");
    let challenge = short.header("www-authenticate").unwrap_or("");
    assert!(challenge.contains(r#"scope="metrics:read""#), "{challenge}");
    // A tool call the reader's token does not cover is refused too.
    let wipe = guarded
        .post_as(
            Some(&guarded.token("bob", "tools:read")),
            &tool_call(1, "wipe", json!({"area": "x"})),
        )
        .await;
    assert_eq!(wipe.status, 403, "{wipe:?}");
    let scraper = format!("Bearer {}", guarded.token("prometheus", "metrics:read"));
    let metrics = scrape(&addr, &[("Authorization", &scraper)]).await;
    assert_eq!(metrics.status, 200, "{metrics:?}");
    let text = &metrics.body;
    let reason = |why: &str| {
        value(
            text,
            &format!(r#"toolsmith_auth_refusals_total{{reason="{why}"}}"#),
        )
    };
    assert_eq!(reason("no_token"), Some(1.0), "{text}");
    assert_eq!(reason("invalid_token"), Some(1.0), "{text}");
    assert_eq!(reason("insufficient_scope"), Some(2.0), "{text}");
}

/// `--metrics-scope` without authorization would serve metrics to anyone: refused at start.
#[tokio::test]
async fn a_metrics_scope_without_authorization_is_refused() {
    let (code, stderr) = toolsmith_tests::exit_of(
        FIXTURE,
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--metrics-scope",
            "metrics:read",
        ],
    )
    .await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("a metrics scope needs authorization"),
        "{stderr}"
    );
}

/// A stdio server serves `/metrics` on `--metrics-addr` only: calls and the confirmations
/// it asked (a 2026-07-28 round: asked, then accepted; asked, then declined) are there.
#[tokio::test]
async fn a_stdio_server_serves_metrics_on_its_metrics_address() {
    let mut command = tokio::process::Command::new(ASKING);
    command.args([
        "serve",
        "--confirm",
        "destructive",
        "--metrics-addr",
        "127.0.0.1:0",
    ]);
    let mut raw = Raw::spawn(command, Stdio::piped());
    let stderr = raw.child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let addr = toolsmith_tests::asking::metrics_address(&mut lines).await;
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });

    // Arguments that are refused ask nobody: not counted as asked.
    let invalid = raw
        .ask(&modern_call(9, "remove", json!({"item": 5}), None))
        .await;
    assert_eq!(invalid["result"]["isError"], true, "{invalid}");
    for (id, answer) in [(1, accept()), (3, json!({"action": "decline"}))] {
        let first = raw
            .ask(&modern_call(id, "remove", json!({"item": "milk"}), None))
            .await;
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        let state = first["result"]["requestState"].as_str().unwrap().to_owned();
        let retry = modern_call(
            id + 1,
            "remove",
            json!({"item": "milk"}),
            Some((&state, json!({"confirm": answer}))),
        );
        raw.ask(&retry).await;
    }
    let text = scrape(&addr, &[]).await.body;
    assert_eq!(
        value(&text, "toolsmith_confirmations_asked_total"),
        Some(2.0),
        "{text}"
    );
    let answered = |answer: &str| {
        value(
            &text,
            &format!(r#"toolsmith_confirmations_answered_total{{answer="{answer}"}}"#),
        )
    };
    assert_eq!(answered("accepted"), Some(1.0), "{text}");
    assert_eq!(answered("declined"), Some(1.0), "{text}");
    assert_eq!(
        calls(&text, "remove", "input_required"),
        Some(2.0),
        "{text}"
    );
    assert_eq!(calls(&text, "remove", "ok"), Some(1.0), "{text}");
    assert_eq!(calls(&text, "remove", "refused"), Some(1.0), "{text}");
    assert_eq!(
        calls(&text, "remove", "invalid_arguments"),
        Some(1.0),
        "{text}"
    );
    // Only /metrics is there.
    let other = request(&addr, "GET", "/mcp", &[], "").await;
    assert_eq!(other.status, 404);
}

/// The endpoint cannot take a path the server answers itself: refused at start, not a panic.
#[tokio::test]
async fn the_endpoint_cannot_be_at_the_metrics_path() {
    for path in ["/metrics", "/healthz"] {
        let (code, stderr) = toolsmith_tests::exit_of(
            FIXTURE,
            &["serve", "--http", "127.0.0.1:0", "--http-path", path],
        )
        .await;
        assert_eq!(code, Some(1), "{path}: {stderr}");
        assert!(stderr.contains("one the server answers itself"), "{stderr}");
    }
}

/// An HTTP server given `--metrics-addr` serves `/metrics` there alone, and not on its
/// public endpoint.
#[tokio::test]
async fn an_http_server_with_a_metrics_address_serves_none_publicly() {
    let port = toolsmith_tests::free_port();
    let apart = format!("127.0.0.1:{port}");
    let server = HttpServer::start(FIXTURE, &["--metrics-addr", &apart]).await;
    let answer = server
        .post(&tool_call(1, "add", json!({"a": 1, "b": 2})), &[VERSION])
        .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(scrape(&server.addr, &[]).await.status, 404);
    let metrics = scrape(&apart, &[]).await;
    assert_eq!(metrics.status, 200, "{metrics:?}");
    assert_eq!(
        calls(&metrics.body, "add", "ok"),
        Some(1.0),
        "{}",
        metrics.body
    );
}

/// A metrics scope (a token on the public endpoint) and a metrics address (a listener with
/// no token) are two answers to one question: giving both is refused at start.
#[tokio::test]
async fn a_metrics_scope_and_a_metrics_address_are_not_both_given() {
    let keys = toolsmith_tests::guarded::KeyFile::new();
    let (code, stderr) = toolsmith_tests::exit_of(
        FIXTURE,
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--auth-issuer",
            toolsmith_tests::guarded::ISSUER,
            "--auth-jwks",
            &keys.path,
            "--metrics-scope",
            "metrics:read",
            "--metrics-addr",
            "127.0.0.1:0",
        ],
    )
    .await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("not both"), "{stderr}");
}

/// `/metrics` checks `Host` as the MCP endpoint does (DNS rebinding), on the main listener
/// and on `--metrics-addr`; `--metrics-host` lets a scraper's own name in.
#[tokio::test]
async fn metrics_answer_only_allowed_hosts_on_both_listeners() {
    let port = toolsmith_tests::free_port();
    let apart = format!("127.0.0.1:{port}");
    let open = HttpServer::start(FIXTURE, &["--metrics-host", "scraper.internal"]).await;
    let separate = HttpServer::start(
        FIXTURE,
        &[
            "--metrics-addr",
            &apart,
            "--metrics-host",
            "scraper.internal:9464",
        ],
    )
    .await;
    let apart_local = format!("localhost:{port}");
    for (addr, own) in [
        (open.addr.as_str(), open.addr.as_str()),
        (apart.as_str(), apart.as_str()),
    ] {
        let refused = scrape(addr, &[("Host", "evil.example")]).await;
        assert_eq!(refused.status, 403, "{addr}: {refused:?}");
        assert!(!refused.body.contains("toolsmith_"), "{}", refused.body);
        assert!(refused.body.contains("--metrics-host"), "{}", refused.body);
        assert_eq!(scrape(addr, &[("Host", own)]).await.status, 200, "{addr}");
    }
    assert_eq!(scrape(&apart, &[("Host", &apart_local)]).await.status, 200);
    assert_eq!(
        scrape(&open.addr, &[("Host", "scraper.internal:8080")])
            .await
            .status,
        200,
        "a name without a port allows any port"
    );
    assert_eq!(
        scrape(&apart, &[("Host", "scraper.internal:9464")])
            .await
            .status,
        200
    );
    assert_eq!(
        scrape(&apart, &[("Host", "scraper.internal:1")])
            .await
            .status,
        403,
        "a name with a port allows that port"
    );
    drop(separate);
}
