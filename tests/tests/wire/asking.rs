//! The two-way channel from a call to its client: a tool asks (`elicitation/create`) during
//! its call, the client answers, and the call goes on with the answer: over stdio on both
//! paths, and over HTTP with sessions; a way in that cannot carry the request declines it and
//! says why, and the tool is never left waiting.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolsmith_tests::asking::{open_session, read_until, session_headers, stream_in_session};
use toolsmith_tests::http::HttpServer;

const ASKING: &str = env!("CARGO_BIN_EXE_asking");
const WAIT: Duration = Duration::from_secs(10);

fn call(id: u64, what: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "confirm", "arguments": {"what": what}}})
}

fn initialize(capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "raw-test-client", "version": "0"}}})
}

/// A stdio session with the asking server: the lines it writes come out of `lines`.
struct Session {
    _child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Session {
    async fn start(env: &[(&str, &str)], capabilities: Value) -> Session {
        let mut child = tokio::process::Command::new(ASKING)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut session = Session {
            _child: child,
            stdin,
            lines,
        };
        session.send(&initialize(capabilities)).await;
        assert_eq!(session.next().await["id"], 0);
        session
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        session
    }

    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("the server writes within the wait")
            .unwrap()
            .expect("the server writes a line");
        serde_json::from_str(&line).unwrap()
    }
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
}

#[tokio::test]
async fn over_stdio_a_call_asks_and_goes_on_with_the_answer_on_both_paths() {
    let elicitation = json!({"elicitation": {}});
    for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
        let mut session = Session::start(&env, elicitation.clone()).await;
        session.send(&call(1, "the deletion")).await;
        let asked = session.next().await;
        assert_eq!(asked["method"], "elicitation/create", "{env:?}: {asked}");
        assert_eq!(asked["params"]["message"], "Confirm the deletion?");
        let id = asked["id"].clone();
        assert!(
            id.as_str().is_some_and(|id| id.starts_with("toolsmith-")),
            "{id}"
        );
        // Another request meanwhile is answered as usual.
        session
            .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
            .await;
        assert_eq!(session.next().await["id"], 2);
        session
            .send(&json!({"jsonrpc": "2.0", "id": id,
                "result": {"action": "accept", "content": {"confirm": true}}}))
            .await;
        let answered = session.next().await;
        assert_eq!(answered["id"], 1, "{env:?}: {answered}");
        assert_eq!(text(&answered), r#"accept {"confirm":true}"#, "{env:?}");
        // A decline is an answer too, and an error from the client reaches the tool.
        session.send(&call(3, "it")).await;
        let asked = session.next().await;
        session
            .send(&json!({"jsonrpc": "2.0", "id": asked["id"],
                "error": {"code": -1, "message": "no user here"}}))
            .await;
        let answered = session.next().await;
        assert_eq!(
            text(&answered),
            "not asked: the client answered with an error: no user here"
        );
    }
}

#[tokio::test]
async fn a_client_that_declared_no_elicitation_is_not_asked() {
    let mut session = Session::start(&[], json!({})).await;
    session.send(&call(1, "it")).await;
    let answered = session.next().await;
    assert_eq!(answered["id"], 1, "no request went out first: {answered}");
    assert_eq!(
        text(&answered),
        "not asked: the client did not declare the `elicitation` capability"
    );
}

#[tokio::test]
async fn stateless_http_declines_on_both_paths() {
    for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
        let server = HttpServer::start_with(ASKING, &[], &env).await;
        let answered = server
            .post(&call(1, "it"), &[("MCP-Protocol-Version", "2025-11-25")])
            .await;
        let messages = answered.messages();
        let answer = messages.last().expect("an answer");
        assert!(
            text(answer).starts_with("not asked: ")
                && (text(answer).contains("stateless HTTP")
                    || text(answer).contains("stateless over HTTP")),
            "{env:?}: {answer}"
        );
    }
}

/// Over HTTP with sessions, the request to the client goes out on the call's event stream,
/// and the client's answer, POSTed in the session, reaches the call.
#[tokio::test]
async fn with_sessions_the_answer_posted_in_the_session_reaches_the_call() {
    let server = HttpServer::start(ASKING, &["--sessions"]).await;
    let session = open_session(&server, json!({"elicitation": {}})).await;
    let headers = session_headers(&session);
    // The call's response is an event stream: read it as it comes.
    let mut stream = stream_in_session(&server, &session, Some(&call(7, "the import"))).await;
    let mut seen = String::new();
    let asked = read_until(&mut stream, &mut seen, "elicitation/create").await;
    assert_eq!(asked["params"]["message"], "Confirm the import?", "{seen}");
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
        "result": {"action": "accept", "content": {"confirm": true}}});
    let posted = server.post(&answer, &headers).await;
    assert!(
        matches!(posted.status, 200 | 202),
        "the answer is taken: {posted:?}"
    );
    let result = read_until(&mut stream, &mut seen, "\"result\"").await;
    assert_eq!(result["id"], 7, "{seen}");
    assert_eq!(text(&result), r#"accept {"confirm":true}"#);
}
