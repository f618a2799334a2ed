//! Confirmation of destructive calls on the ways in that ask during the call: over stdio at
//! 2025-11-25 (a request to the client, under the call's timeout and cancellation), the
//! confirmation policy from the hints, a client that cannot ask, and stateless HTTP at
//! 2025-11-25 (refused, naming the ways out). Whatever goes wrong, the tool does not run:
//! `runs` counts the runs of the tools that change something. (At 2026-07-28, in rounds:
//! `rounds.rs`.)

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_tests::asking::{
    accept, meta, modern_call, open_session, read_until, refused, runs, session_headers,
    session_of, stream_in_session, text,
};
use toolsmith_tests::http::HttpServer;
use toolsmith_tests::raw::{Raw, call};

const ASKING: &str = env!("CARGO_BIN_EXE_asking");

async fn session(env: &[(&str, &str)]) -> Raw {
    toolsmith_tests::asking::session(ASKING, env).await
}

/// Over stdio at 2025-11-25 the server asks with `elicitation/create`; accept runs the tool,
/// decline and cancel do not.
#[tokio::test]
async fn over_stdio_the_user_is_asked_first_and_only_yes_runs() {
    for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
        let mut raw = session(&env).await;
        let mut id = 10;
        for (answer, runs_after) in [
            (json!({"action": "decline"}), 0),
            (json!({"action": "cancel"}), 0),
            (
                json!({"action": "accept", "content": {"confirm": false}}),
                0,
            ),
            (
                json!({"action": "accept", "content": {"confirm": "yes"}}),
                0,
            ),
            (json!({"action": "accept", "content": {}}), 0),
            (accept(), 1),
            // A client that shows only buttons sends no content: its accept is a yes.
            (json!({"action": "accept"}), 2),
        ] {
            id += 1;
            raw.send(&call(id, "remove", json!({"item": "the milk"})))
                .await;
            let asked = raw.next_within(Duration::from_secs(10)).await.unwrap();
            assert_eq!(asked["method"], "elicitation/create", "{env:?}: {asked}");
            assert_eq!(asked["params"]["message"], "Remove the milk?");
            let schema = &asked["params"]["requestedSchema"];
            assert_eq!(schema["properties"]["confirm"]["type"], "boolean");
            assert_eq!(schema["properties"].as_object().unwrap().len(), 1);
            raw.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": answer}))
                .await;
            let (_, answered) = raw.until(&json!(id)).await;
            assert_eq!(asked["params"]["_meta"]["dev.toolsmith/confirm"], true);
            if runs_after == 0 {
                assert!(refused(&answered), "{answer}: {answered}");
                let why = text(&answered);
                assert!(
                    why.contains("declined") || why.contains("cancelled"),
                    "{why}"
                );
            } else {
                assert_eq!(text(&answered), "removed the milk", "{answered}");
            }
            id += 1;
            assert_eq!(
                runs(&mut raw, id, false).await,
                runs_after,
                "{env:?} {answer}"
            );
        }
    }
}

/// The wait for the user is part of the call: its timeout ends it, and so does a cancel;
/// the tool does not run.
#[tokio::test]
async fn the_calls_timeout_and_cancellation_cover_the_wait() {
    let mut raw = session(&[]).await;
    raw.send(&call(1, "remove", json!({"item": "x"}))).await;
    let asked = raw.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(asked["method"], "elicitation/create");
    // No answer: `remove` has a 2 s timeout. The client is told to stop asking its user.
    let (before, answered) = raw.until(&json!(1)).await;
    assert!(refused(&answered), "{answered}");
    assert!(
        text(&answered).contains("did not answer the confirmation of tool 'remove' within 2s"),
        "{answered}"
    );
    let given_up = |frames: &[Value], id: &Value| {
        frames
            .iter()
            .any(|f| f["method"] == "notifications/cancelled" && &f["params"]["requestId"] == id)
    };
    assert!(given_up(&before, &asked["id"]), "{before:?}");
    // The answer comes too late: nothing runs.
    raw.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": accept()}))
        .await;
    raw.send(&call(2, "remove", json!({"item": "y"}))).await;
    let asked = raw.next_within(Duration::from_secs(10)).await.unwrap();
    raw.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2}}),
    )
    .await;
    // The server gives the question up too, and tells the client.
    let mut seen = Vec::new();
    while !given_up(&seen, &asked["id"]) {
        match raw.next_within(Duration::from_secs(5)).await {
            Some(frame) => seen.push(frame),
            None => panic!("the client was not told: {seen:?}"),
        }
    }
    // An answer after that finds nobody waiting: nothing runs.
    raw.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": accept()}))
        .await;
    assert_eq!(runs(&mut raw, 3, false).await, 0);
    // A cancelled request gets no answer at all: the next frame is the answer to 4.
    let answer = raw
        .ask(&json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}))
        .await;
    assert_eq!(answer["id"], 4);
}

/// A client that declared no elicitation is never asked, and the tool does not run.
#[tokio::test]
async fn a_client_that_cannot_ask_is_refused() {
    let mut raw = session_of(tokio::process::Command::new(ASKING), json!({})).await;
    raw.send(&call(1, "remove", json!({"item": "x"}))).await;
    let (before, answered) = raw.until(&json!(1)).await;
    assert!(before.is_empty(), "no request went out: {before:?}");
    assert!(refused(&answered));
    assert!(
        text(&answered).contains("declared no elicitation capability"),
        "{answered}"
    );
    // The same at 2026-07-28, per request.
    let mut modern = modern_call(2, "remove", json!({"item": "x"}), None);
    modern["params"]["_meta"] = meta(json!({}));
    let answered = raw.ask(&modern).await;
    assert!(refused(&answered), "{answered}");
    assert!(text(&answered).contains("declared no elicitation capability"));
    assert_eq!(runs(&mut raw, 3, false).await, 0);
}

/// `--confirm destructive` asks before every destructive tool, with a default question that
/// names the tool and its arguments; `--confirm write` before every tool that is not
/// read-only; read-only tools never ask.
#[tokio::test]
async fn the_confirm_policy_follows_the_hints() {
    let cases = [
        ("destructive", "purge", json!({"everything": true}), true),
        ("destructive", "rename", json!({"name": "x"}), false),
        ("write", "rename", json!({"name": "x"}), true),
        ("write", "runs", json!({}), false),
        ("none", "purge", json!({"everything": true}), false),
    ];
    for (policy, tool, args, asks) in cases {
        let mut command = tokio::process::Command::new(ASKING);
        command.args(["serve", "--confirm", policy]);
        let mut raw = session_of(command, json!({"elicitation": {}})).await;
        raw.send(&call(1, tool, args.clone())).await;
        let first = raw.next_within(Duration::from_secs(10)).await.unwrap();
        if asks {
            assert_eq!(
                first["method"], "elicitation/create",
                "{policy} {tool}: {first}"
            );
            if tool == "purge" {
                assert_eq!(
                    first["params"]["message"],
                    "Allow \"Purge\" (purge) to run with everything = true?"
                );
            }
            raw.send(
                &json!({"jsonrpc": "2.0", "id": first["id"], "result": {"action": "decline"}}),
            )
            .await;
            let (_, answered) = raw.until(&json!(1)).await;
            assert!(refused(&answered), "{answered}");
        } else {
            assert_eq!(first["id"], 1, "{policy} {tool} runs at once: {first}");
            assert_eq!(first["result"]["isError"], false);
        }
    }
}

/// Over stateless HTTP a client of 2025-11-25 cannot be asked: refused, naming both ways out.
#[tokio::test]
async fn stateless_http_before_2026_is_refused_naming_the_ways_out() {
    for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
        let server = HttpServer::start_with(ASKING, &[], &env).await;
        let response = server
            .post(
                &call(1, "remove", json!({"item": "x"})),
                &[("MCP-Protocol-Version", "2025-11-25")],
            )
            .await;
        let answer = response.messages().pop().expect("an answer");
        assert!(refused(&answer), "{env:?}: {answer}");
        let why = text(&answer);
        assert!(
            why.contains("2026-07-28") && why.contains("--sessions"),
            "{why}"
        );
    }
}

/// A request of a session that names its (earlier) revision in `_meta` is still asked over
/// the session, not in rounds.
#[tokio::test]
async fn a_session_request_naming_its_revision_is_asked_over_the_session() {
    let mut raw = session(&[]).await;
    let mut request = call(1, "remove", json!({"item": "x"}));
    request["params"]["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2025-11-25"});
    raw.send(&request).await;
    let asked = raw.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    raw.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": accept()}))
        .await;
    let (_, answered) = raw.until(&json!(1)).await;
    assert_eq!(text(&answered), "removed x", "{answered}");
}

/// Over HTTP with `--sessions`, the question goes out on the call's event stream, and the
/// user's answer, posted in the session, lets the tool run.
#[tokio::test]
async fn with_sessions_the_question_goes_out_on_the_calls_stream() {
    let server = HttpServer::start(ASKING, &["--sessions"]).await;
    let session = open_session(&server, json!({"elicitation": {}})).await;
    let request = call(7, "remove", json!({"item": "the jam"}));
    let mut stream = stream_in_session(&server, &session, Some(&request)).await;
    let mut seen = String::new();
    let asked = read_until(&mut stream, &mut seen, "elicitation/create").await;
    assert_eq!(asked["params"]["message"], "Remove the jam?", "{seen}");
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": accept()});
    let posted = server.post(&answer, &session_headers(&session)).await;
    assert!(matches!(posted.status, 200 | 202), "{posted:?}");
    let result = read_until(&mut stream, &mut seen, "\"result\"").await;
    assert_eq!(result["id"], 7, "{seen}");
    assert_eq!(text(&result), "removed the jam");
}

/// A tool without a timeout of its own waits for its confirmation no longer than a request
/// state lives (`TOOLSMITH_TEST_STATE_TTL_MS` here), then is refused, and the question is
/// withdrawn.
#[tokio::test]
async fn without_a_tool_timeout_the_wait_ends_with_the_state_ttl() {
    let mut command = tokio::process::Command::new(ASKING);
    command
        .args(["serve", "--confirm", "destructive"])
        .env("TOOLSMITH_TEST_STATE_TTL_MS", "300");
    let mut raw = session_of(command, json!({"elicitation": {}})).await;
    raw.send(&call(1, "purge", json!({"everything": true})))
        .await;
    let asked = raw.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(asked["method"], "elicitation/create");
    let (before, answered) = raw.until(&json!(1)).await;
    assert!(refused(&answered), "{answered}");
    assert!(
        text(&answered).contains("did not answer the confirmation of tool 'purge' within 300ms"),
        "{answered}"
    );
    assert!(
        before
            .iter()
            .any(|f| f["method"] == "notifications/cancelled"
                && f["params"]["requestId"] == asked["id"]),
        "{before:?}"
    );
}

/// Over HTTP with `--sessions`, a question the call gave up (its timeout) is withdrawn with
/// `notifications/cancelled` too, on one of the session's streams.
#[tokio::test]
async fn with_sessions_a_question_given_up_is_withdrawn() {
    let server = HttpServer::start(ASKING, &["--sessions"]).await;
    let session = open_session(&server, json!({"elicitation": {}})).await;
    // The session's own stream, where what belongs to no request goes.
    let mut standalone = stream_in_session(&server, &session, None).await;
    let request = call(8, "remove", json!({"item": "the jam"}));
    let mut stream = stream_in_session(&server, &session, Some(&request)).await;
    let mut seen = String::new();
    let asked = read_until(&mut stream, &mut seen, "elicitation/create").await;
    // No answer: `remove`'s 2 s timeout ends the call.
    let result = read_until(&mut stream, &mut seen, "\"result\"").await;
    assert!(refused(&result), "{result}");
    let id = asked["id"].to_string();
    let needle = format!("\"requestId\":{id}");
    if !seen.contains(&needle) {
        let mut elsewhere = String::new();
        let withdrawn =
            read_until(&mut standalone, &mut elsewhere, "notifications/cancelled").await;
        assert_eq!(withdrawn["params"]["requestId"], asked["id"], "{elsewhere}");
    }
}

/// The question comes after the arguments are checked: a call with wrong arguments is
/// refused for them, and nobody is asked.
#[tokio::test]
async fn wrong_arguments_are_refused_before_anyone_is_asked() {
    let mut raw = session(&[]).await;
    raw.send(&call(1, "remove", json!({"item": 3}))).await;
    let (before, answered) = raw.until(&json!(1)).await;
    assert!(before.is_empty(), "nobody was asked: {before:?}");
    assert_eq!(
        answered["result"]["_meta"]["dev.toolsmith/error"], "invalid_arguments",
        "{answered}"
    );
    assert_eq!(runs(&mut raw, 2, false).await, 0);
}

/// URL-mode elicitation goes to a client that declared it: the user is sent to the page.
#[tokio::test]
async fn a_url_elicitation_sends_the_user_to_the_page() {
    let command = tokio::process::Command::new(ASKING);
    let mut raw = session_of(command, json!({"elicitation": {"url": {}}})).await;
    raw.send(&call(1, "sign_in", json!({}))).await;
    let asked = raw.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(asked["params"]["mode"], "url");
    assert_eq!(asked["params"]["url"], "https://login.example/x");
    raw.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept"}}))
        .await;
    let (_, answered) = raw.until(&json!(1)).await;
    assert_eq!(text(&answered), "went", "{answered}");
}
