//! Streamable HTTP over real sockets on 127.0.0.1: stateless by default (replicas need no
//! affinity), sessions on request, secure by default, the proper status for every malformed
//! request, notifications before the result, cancellation on disconnect, the same tools as
//! stdio, health, and a graceful stop.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use toolsmith_tests::http::{HttpServer, post, request};
use toolsmith_tests::{example_binary, initialize};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

fn result(messages: &[Value]) -> &Value {
    &messages.last().expect("a message")["result"]
}

#[tokio::test]
async fn stateless_requests_stand_alone_across_processes() {
    let notes = example_binary("notes");
    let notes = notes.to_str().unwrap();
    let (a, b) = (
        HttpServer::start(notes, &[]).await,
        HttpServer::start(notes, &[]).await,
    );
    let init = a.post(&initialize(1, "2025-11-25"), &[]).await;
    assert_eq!(init.status, 200);
    assert!(
        init.header("mcp-session-id").is_none(),
        "stateless: no session"
    );
    assert_eq!(result(&init.messages())["protocolVersion"], "2025-11-25");
    // The call goes to another process, which never saw the initialize.
    let got = b
        .post(&call(2, "get_note", json!({"note_id": 1})), &[VERSION])
        .await;
    assert_eq!(got.status, 200, "{}", got.body);
    assert_eq!(
        result(&got.messages())["structuredContent"]["title"],
        "Groceries"
    );
    for method in ["GET", "DELETE"] {
        let refused = request(&a.addr, method, &a.path, &[], "").await;
        assert_eq!(
            (refused.status, refused.header("allow")),
            (405, Some("POST"))
        );
    }
}

#[tokio::test]
async fn sessions_are_kept_when_asked_for() {
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let init = server.post(&initialize(1, "2025-11-25"), &[]).await;
    let session = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let with = [VERSION, ("Mcp-Session-Id", session.as_str())];
    server
        .post(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            &with,
        )
        .await;
    let added = server
        .post(&call(2, "add", json!({"a": 2, "b": 3})), &with)
        .await;
    assert_eq!(
        result(&added.messages())["structuredContent"]["result"],
        5,
        "{}",
        added.body
    );
    let unknown = server
        .post(
            &call(3, "add", json!({"a": 1, "b": 1})),
            &[VERSION, ("Mcp-Session-Id", "nope")],
        )
        .await;
    assert_eq!(unknown.status, 404);
    let none = server
        .post(&call(4, "add", json!({"a": 1, "b": 1})), &[VERSION])
        .await;
    assert_eq!(none.status, 400);
    let headers = [("Mcp-Session-Id", session.as_str()), VERSION];
    let ended = request(&server.addr, "DELETE", &server.path, &headers, "").await;
    assert!(ended.status < 300, "{ended:?}");
    let after = server
        .post(&call(5, "add", json!({"a": 1, "b": 1})), &with)
        .await;
    assert_eq!(after.status, 404, "the session is gone");
}

#[tokio::test]
async fn host_and_origin_are_checked_by_default() {
    let server = HttpServer::start(FIXTURE, &["--allowed-host", "tools.internal"]).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let evil_host = server.post(&list, &[("Host", "evil.example")]).await;
    assert_eq!(evil_host.status, 403);
    let added_host = server.post(&list, &[("Host", "tools.internal")]).await;
    assert_eq!(added_host.status, 200);
    let evil_origin = server
        .post(&list, &[("Origin", "https://evil.example")])
        .await;
    assert_eq!(evil_origin.status, 403);
    let local_page = server
        .post(&list, &[("Origin", "http://localhost:6274")])
        .await;
    assert_eq!(local_page.status, 200);
    let proxied = HttpServer::start(
        FIXTURE,
        &[
            "--public-url",
            "https://mcp.example.com/mcp",
            "--allowed-origin",
            "https://app.example.com",
        ],
    )
    .await;
    for (name, value) in [
        ("Host", "mcp.example.com"),
        ("Origin", "https://mcp.example.com"),
        ("Origin", "https://app.example.com"),
    ] {
        let ok = proxied.post(&list, &[(name, value)]).await;
        assert_eq!(ok.status, 200, "{name}: {value}");
    }
}

#[tokio::test]
async fn malformed_requests_get_the_proper_status() {
    let server = HttpServer::start(FIXTURE, &["--max-body", "4096"]).await;
    let (addr, path) = (server.addr.as_str(), server.path.as_str());
    let note = server
        .post(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            &[],
        )
        .await;
    assert_eq!((note.status, note.body.as_str()), (202, ""));
    let response = server
        .post(&json!({"jsonrpc": "2.0", "id": 1, "result": {}}), &[])
        .await;
    assert_eq!(response.status, 202);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let old = server
        .post(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            &[("MCP-Protocol-Version", "1999-01-01")],
        )
        .await;
    assert_eq!(old.status, 400);
    let text = request(
        addr,
        "POST",
        path,
        &[
            ("Content-Type", "text/plain"),
            ("Accept", "application/json, text/event-stream"),
        ],
        &list,
    )
    .await;
    assert_eq!(text.status, 415);
    let html = request(
        addr,
        "POST",
        path,
        &[
            ("Content-Type", "application/json"),
            ("Accept", "text/html"),
        ],
        &list,
    )
    .await;
    assert_eq!(html.status, 406);
    let big = call(2, "echo", json!({"text": "x".repeat(10_000)}));
    let too_big = post(addr, path, &big, &[]).await;
    assert_eq!(too_big.status, 413);
    let body: Value = serde_json::from_str(&too_big.body).expect("a JSON-RPC error body");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    let health = request(addr, "GET", "/healthz", &[], "").await;
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));
}

#[tokio::test]
async fn notifications_come_before_the_result() {
    let server = HttpServer::start(FIXTURE, &[]).await;
    let mut steps = call(1, "steps", json!({"steps": 3}));
    steps["params"]["_meta"] = json!({"progressToken": "t"});
    let answer = server.post(&steps, &[VERSION]).await;
    assert_eq!(
        answer
            .header("content-type")
            .map(|t| t.starts_with("text/event-stream")),
        Some(true)
    );
    let messages = answer.messages();
    let methods: Vec<&str> = messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(result)"))
        .collect();
    let last_progress = methods
        .iter()
        .rposition(|m| *m == "notifications/progress")
        .unwrap();
    let result_at = methods.iter().position(|m| *m == "(result)").unwrap();
    assert!(last_progress < result_at, "{methods:?}");
    assert!(methods.contains(&"notifications/message"), "{methods:?}");
    assert_eq!(result(&messages)["structuredContent"]["result"], 3);
}

#[tokio::test]
async fn a_client_that_disconnects_cancels_its_call() {
    let server = HttpServer::start(FIXTURE, &[]).await;
    let body = call(1, "slow", json!({"ms": 5000})).to_string();
    let mut stream = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        server.path,
        server.addr,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(stream);
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let seen = server
            .post(&call(2, "cancellations", json!({})), &[VERSION])
            .await;
        if result(&seen.messages())["structuredContent"]["result"] == 1 {
            return;
        }
    }
    panic!("the call was not cancelled when its client went away");
}

#[tokio::test]
async fn the_same_tools_and_policy_as_over_stdio() {
    let notes = example_binary("notes");
    let notes = notes.to_str().unwrap();
    let server = HttpServer::start(notes, &["--read-only"]).await;
    let listed = server
        .post(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            &[VERSION],
        )
        .await;
    let over_http = result(&listed.messages())["tools"].clone();
    let stdio = std::process::Command::new(notes)
        .args(["schema"])
        .output()
        .unwrap();
    let all: Value = serde_json::from_slice(&stdio.stdout).unwrap();
    let read_only: Vec<&Value> = all["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["annotations"]["readOnlyHint"] == true)
        .collect();
    assert_eq!(
        over_http.as_array().unwrap().iter().collect::<Vec<_>>(),
        read_only
    );
    let refused = server
        .post(&call(2, "delete_note", json!({"note_id": 1})), &[VERSION])
        .await;
    let messages = refused.messages();
    let answer = result(&messages);
    assert_eq!(answer["isError"], true);
    assert!(
        answer["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("--read-only")
    );
}

// The call outlasts the 2 s a stop gives the connections once no call counts as in flight:
// it is answered only if the stop waits for it, on either way a call can take.
#[tokio::test]
async fn a_stop_signal_lets_calls_in_flight_finish_then_exits_zero() {
    stop_waits_for_a_call(&[]).await;
}

#[tokio::test]
async fn a_stop_signal_lets_calls_in_flight_on_rmcps_path_finish() {
    stop_waits_for_a_call(&[("TOOLSMITH_TEST_NO_FAST_PATH", "1")]).await;
}

async fn stop_waits_for_a_call(env: &[(&str, &str)]) {
    let mut server = HttpServer::start_with(FIXTURE, &[], env).await;
    let (addr, path) = (server.addr.clone(), server.path.clone());
    let slow = tokio::spawn(async move {
        post(
            &addr,
            &path,
            &call(1, "slow", json!({"ms": 3000})),
            &[VERSION],
        )
        .await
    });
    // Time for the call to reach the server on a loaded machine (it runs for 3 s).
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let pid = server.child.id().unwrap() as i32;
    // SAFETY: sends SIGTERM to the child this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let answered = slow.await.unwrap();
    assert_eq!(
        result(&answered.messages())["structuredContent"]["result"],
        3000
    );
    let status = tokio::time::timeout(Duration::from_secs(15), server.child.wait())
        .await
        .expect("the server stops")
        .unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn an_open_event_stream_does_not_hold_up_the_stop() {
    let mut server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let init = server.post(&initialize(1, "2025-11-25"), &[]).await;
    let session = init.header("mcp-session-id").expect("a session").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    let head = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n",
        server.path, server.addr
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let pid = server.child.id().unwrap() as i32;
    let start = std::time::Instant::now();
    // SAFETY: sends SIGTERM to the child this test started.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = tokio::time::timeout(Duration::from_secs(15), server.child.wait())
        .await
        .expect("the server stops")
        .unwrap();
    assert!(status.success(), "{status}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    drop(stream);
}

#[tokio::test]
async fn sequential_calls_on_one_connection_are_answered_without_delay() {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

    let server = HttpServer::start(FIXTURE, &[]).await;
    let stream = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    // The client sends each request in one write and delays nothing: any wait is the
    // server's.
    stream.set_nodelay(true).unwrap();
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    // Nagle's algorithm against delayed ACKs costs ~40 ms on every call of every round: the
    // bound is half that, far above what a call costs on a slow or busy machine (2.1 to
    // 2.3 ms on one CI run), and a round gets up to three tries.
    let mut p50s = Vec::new();
    for round in 0..3u64 {
        let mut took = Vec::new();
        for id in round * 50..round * 50 + 50 {
            // With progress asked for, the answer streams as SSE: several writes per answer,
            // each of which Nagle's algorithm would hold back for the client's delayed ACK.
            let mut request = call(id, "steps", json!({"steps": 1}));
            request["params"]["_meta"] = json!({"progressToken": id});
            let body = request.to_string();
            let head = format!(
                "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n",
                server.path,
                server.addr,
                body.len()
            );
            let start = std::time::Instant::now();
            write
                .write_all(format!("{head}{body}").as_bytes())
                .await
                .unwrap();
            let mut chunked = false;
            loop {
                let mut line = String::new();
                read.read_line(&mut line).await.unwrap();
                chunked |= line
                    .to_ascii_lowercase()
                    .starts_with("transfer-encoding: chunked");
                if line == "\r\n" {
                    break;
                }
            }
            assert!(chunked, "an SSE answer");
            let mut events = String::new();
            loop {
                let mut size = String::new();
                read.read_line(&mut size).await.unwrap();
                let size = usize::from_str_radix(size.trim(), 16).unwrap();
                let mut chunk = vec![0; size + 2];
                read.read_exact(&mut chunk).await.unwrap();
                if size == 0 {
                    break;
                }
                events.push_str(&String::from_utf8_lossy(&chunk[..size]));
            }
            took.push(start.elapsed());
            assert!(events.contains("\"result\""), "{events}");
        }
        took.sort();
        let p50 = took[took.len() / 2];
        if p50 < Duration::from_millis(20) {
            return;
        }
        p50s.push(p50);
    }
    panic!("the p50 of 50 sequential calls was over 20 ms in every round: {p50s:?}");
}

#[tokio::test]
async fn each_request_is_logged_at_debug_without_its_arguments() {
    // toolsmith's own debug lines; everything else at info.
    let env = [("TOOLSMITH_LOG", "info,toolsmith=debug")];
    let server = HttpServer::start_with(FIXTURE, &[], &env).await;
    let secret = "s3cr3t-password";
    let echoed = server
        .post(&call(1, "echo", json!({"text": secret})), &[VERSION])
        .await;
    assert_eq!(echoed.status, 200);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let logs = server.stderr.lock().unwrap().clone();
    let request = logs
        .lines()
        .find(|l| l.contains("http request"))
        .expect(&logs);
    for part in ["method=POST", "status=200", "duration_us="] {
        assert!(request.contains(part), "{request}");
    }
    let call = logs
        .lines()
        .find(|l| l.contains("tools/call"))
        .expect(&logs);
    assert!(
        call.contains("name=\"echo\"") || call.contains("name=echo"),
        "{call}"
    );
    assert!(
        !logs.contains(secret),
        "arguments are never logged:\n{logs}"
    );
}

#[tokio::test]
async fn sse_responses_when_asked_for() {
    let server = HttpServer::start(FIXTURE, &["--sse-responses"]).await;
    let got = server
        .post(&call(3, "add", json!({"a": 2, "b": 3})), &[VERSION])
        .await;
    assert_eq!(got.status, 200, "{}", got.body);
    assert!(
        got.header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream")),
        "{:?}",
        got.headers
    );
    let messages = got.messages();
    assert_eq!(messages.last().unwrap()["id"], 3);
    assert_eq!(result(&messages)["content"][0]["text"], "5");
    let plain = HttpServer::start(FIXTURE, &[]).await;
    let got = plain
        .post(&call(4, "add", json!({"a": 2, "b": 3})), &[VERSION])
        .await;
    assert_eq!(got.header("content-type"), Some("application/json"));
}

/// The requests of the HTTP differential test: successes, tool errors, bad arguments,
/// content blocks, lists, ids of both kinds.
fn differential_script() -> Vec<Value> {
    let mut script = vec![
        call(1, "add", json!({"a": 2, "b": 40})),
        call(2, "echo", json!({"text": "héllo \"quoted\""})),
        call(3, "failing", json!({})),
        call(4, "refusing", json!({})),
        call(5, "panicky", json!({"n": 3})),
        call(6, "add", json!({"a": "two"})),
        call(7, "add", json!({"a": 1, "b": 2, "c": 3})),
        call(8, "no_such_tool", json!({})),
        call(9, "image", json!({})),
        call(10, "mixed", json!({})),
        call(11, "by_hand", json!({})),
        call(12, "nothing", json!({})),
        call(13, "overflow", json!({})),
        call(14, "whoami", json!({})),
        call(15, "timed", json!({"ms": 1})),
        json!({"jsonrpc": "2.0", "id": "list-1", "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 16, "method": "tools/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 1}}}),
        json!({"jsonrpc": "2.0", "id": 17, "method": "tools/call", "params": {"name": "add"}}),
    ];
    script.push(json!({"jsonrpc": "2.0", "id": 18, "method": "ping"}));
    script
}

#[tokio::test]
async fn the_fast_path_streams_exactly_as_rmcp_does() {
    let env = [("TOOLSMITH_LOG", "info,toolsmith=debug")];
    let fast = HttpServer::start_with(FIXTURE, &["--sse-responses"], &env).await;
    let rmcp = HttpServer::start_with(
        FIXTURE,
        &["--sse-responses"],
        &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")],
    )
    .await;
    for request in differential_script() {
        let a = fast.post(&request, &[VERSION]).await;
        let b = rmcp.post(&request, &[VERSION]).await;
        assert_eq!(a.status, b.status, "{request}");
        for name in ["content-type", "cache-control", "x-accel-buffering"] {
            assert_eq!(a.header(name), b.header(name), "{name} of {request}");
        }
        assert_eq!(a.messages(), b.messages(), "{request}");
    }
    let logged = fast.stderr.lock().unwrap().clone();
    assert!(logged.matches("way=http").count() >= 10, "{logged}");
}

#[tokio::test]
async fn the_fast_path_answers_exactly_as_rmcp_does() {
    let env = [("TOOLSMITH_LOG", "info,toolsmith=debug")];
    let fast = HttpServer::start_with(FIXTURE, &[], &env).await;
    let rmcp = HttpServer::start_with(FIXTURE, &[], &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")]).await;
    for request in differential_script() {
        let a = fast.post(&request, &[VERSION]).await;
        let b = rmcp.post(&request, &[VERSION]).await;
        assert_eq!(a.status, b.status, "{request}");
        assert_eq!(
            a.header("content-type"),
            b.header("content-type"),
            "{request}"
        );
        let (a, b) = (a.messages(), b.messages());
        assert_eq!(a, b, "{request}");
        assert_eq!(a.len(), 1, "{request}");
    }
    // The fast path was taken, and only for what it plainly accepts.
    let logged = || fast.stderr.lock().unwrap().clone();
    let before = logged().matches("way=http").count();
    assert!(before >= 10, "{}", logged());
    let with_origin = fast
        .post(
            &call(20, "add", json!({"a": 1, "b": 2})),
            &[VERSION, ("Origin", "http://localhost:5173")],
        )
        .await;
    assert_eq!(result(&with_origin.messages())["content"][0]["text"], "3");
    let with_progress = {
        let mut request = call(21, "add", json!({"a": 1, "b": 2}));
        request["params"]["_meta"] = json!({"progressToken": 1});
        fast.post(&request, &[VERSION]).await
    };
    assert_eq!(result(&with_progress.messages())["content"][0]["text"], "3");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(logged().matches("way=http").count(), before, "{}", logged());
    // A plain call takes it again.
    fast.post(&call(22, "add", json!({"a": 1, "b": 2})), &[VERSION])
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(logged().matches("way=http").count(), before + 1);
}
