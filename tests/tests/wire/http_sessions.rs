//! Sessions (`--sessions`) are capped and belong to their caller: an `initialize` past
//! `--max-sessions` gets 503 with `Retry-After`; with authorization, a session is the
//! opener's alone (anyone else gets 404 and the session is untouched); a request id is in
//! flight at most once per session; `DELETE` answers 204, and 404 for an unknown session.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_tests::http::{HttpServer, Response, post, request};
use toolsmith_tests::keys::{Key, claims, jwks};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const VERSION: (&str, &str) = ("MCP-Protocol-Version", "2025-11-25");

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// Opens a session (initialize, then initialized) with `extra` headers; its id, or the
/// refusal.
async fn open(server: &HttpServer, extra: &[(&str, &str)]) -> Result<String, Response> {
    let init = server
        .post(&toolsmith_tests::initialize(1, "2025-11-25"), extra)
        .await;
    let Some(session) = init.header("mcp-session-id").map(str::to_owned) else {
        return Err(init);
    };
    let mut with = extra.to_vec();
    with.extend([VERSION, ("Mcp-Session-Id", session.as_str())]);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(server.post(&initialized, &with).await.status, 202);
    Ok(session)
}

async fn delete(server: &HttpServer, session: &str, extra: &[(&str, &str)]) -> Response {
    let mut headers = extra.to_vec();
    headers.extend([VERSION, ("Mcp-Session-Id", session)]);
    request(&server.addr, "DELETE", &server.path, &headers, "").await
}

fn result(answer: &Response) -> Value {
    answer
        .messages()
        .into_iter()
        .find(|m| m.get("result").is_some() || m.get("error").is_some())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn past_the_session_cap_initialize_gets_503_until_one_closes() {
    let server = HttpServer::start(FIXTURE, &["--sessions", "--max-sessions", "2"]).await;
    let first = open(&server, &[]).await.expect("a first session");
    open(&server, &[]).await.expect("a second session");
    let refused = open(&server, &[]).await.expect_err("no third session");
    // Nor by a body the edge cannot read whole (a `name` that is not a string).
    let mut odd = toolsmith_tests::initialize(9, "2025-11-25");
    odd["params"]["name"] = json!(1);
    let sneaked = server.post(&odd, &[]).await;
    assert_eq!(sneaked.status, 503, "{sneaked:?}");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("5"), "{refused:?}");
    assert!(
        refused.messages()[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("try again later"),
        "{refused:?}"
    );
    assert_eq!(delete(&server, &first, &[]).await.status, 204);
    open(&server, &[])
        .await
        .expect("room again once one closed");
}

#[tokio::test]
async fn delete_answers_204_then_404() {
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let session = open(&server, &[]).await.unwrap();
    assert_eq!(delete(&server, &session, &[]).await.status, 204);
    assert_eq!(delete(&server, &session, &[]).await.status, 404);
    assert_eq!(delete(&server, "no-such-session", &[]).await.status, 404);
}

#[tokio::test]
async fn the_same_id_twice_in_flight_in_one_session_is_refused() {
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let session = open(&server, &[]).await.unwrap();
    let with = [VERSION, ("Mcp-Session-Id", session.as_str())];
    let (addr, path) = (server.addr.clone(), server.path.clone());
    let session_id = session.clone();
    let first = tokio::spawn(async move {
        let with = [VERSION, ("Mcp-Session-Id", session_id.as_str())];
        post(&addr, &path, &call(7, "slow", json!({"ms": 1500})), &with).await
    });
    tokio::time::sleep(Duration::from_millis(400)).await;
    let second = post(
        &server.addr,
        &server.path,
        &call(7, "echo", json!({"text": "second"})),
        &with,
    )
    .await;
    let refused = result(&second);
    assert_eq!(refused["id"], 7, "{second:?}");
    assert_eq!(refused["error"]["code"], -32600, "{second:?}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already in use"),
        "{second:?}"
    );
    // The first gets its own answer.
    let first = first.await.unwrap();
    let answered = result(&first);
    assert_eq!(answered["id"], 7, "{first:?}");
    assert_eq!(
        answered["result"]["structuredContent"]["result"], 1500,
        "{first:?}"
    );
    // Once answered, the id is free again.
    let again = post(
        &server.addr,
        &server.path,
        &call(7, "echo", json!({"text": "again"})),
        &with,
    )
    .await;
    assert_eq!(
        result(&again)["result"]["content"][0]["text"],
        "again",
        "{again:?}"
    );
}

#[tokio::test]
async fn with_authorization_a_session_belongs_to_its_opener() {
    const ISSUER: &str = "https://issuer.test";
    let key = Key::ec("ec-1");
    let dir = std::env::temp_dir().join(format!("toolsmith-sessions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jwks_path = dir.join("jwks.json");
    std::fs::write(&jwks_path, jwks(&[&key])).unwrap();
    let server = HttpServer::start(
        FIXTURE,
        &[
            "--sessions",
            "--auth-issuer",
            ISSUER,
            "--auth-jwks",
            jwks_path.to_str().unwrap(),
        ],
    )
    .await;
    let resource = format!("http://{}{}", server.addr, server.path);
    let scope = "tools:read tools:write tools:destructive";
    let bearer = |subject: &str| {
        format!(
            "Bearer {}",
            key.sign(&claims(ISSUER, &resource, subject, scope))
        )
    };
    let (alice, mallory) = (bearer("alice"), bearer("mallory"));
    let session = open(&server, &[("Authorization", alice.as_str())])
        .await
        .expect("alice's session");
    let as_mallory = [
        VERSION,
        ("Mcp-Session-Id", session.as_str()),
        ("Authorization", mallory.as_str()),
    ];
    // Another subject sees no such session: no call, no stream, no DELETE.
    let stolen = post(
        &server.addr,
        &server.path,
        &call(2, "echo", json!({"text": "x"})),
        &as_mallory,
    )
    .await;
    assert_eq!(stolen.status, 404, "{stolen:?}");
    let stream = request(
        &server.addr,
        "GET",
        &server.path,
        &[
            ("Accept", "text/event-stream"),
            as_mallory[0],
            as_mallory[1],
            as_mallory[2],
        ],
        "",
    )
    .await;
    assert_eq!(stream.status, 404, "{stream:?}");
    let deleted = delete(&server, &session, &[("Authorization", mallory.as_str())]).await;
    assert_eq!(deleted.status, 404, "{deleted:?}");
    // The session is untouched: its opener still uses it.
    let as_alice = [
        VERSION,
        ("Mcp-Session-Id", session.as_str()),
        ("Authorization", alice.as_str()),
    ];
    let mine = post(
        &server.addr,
        &server.path,
        &call(3, "echo", json!({"text": "mine"})),
        &as_alice,
    )
    .await;
    assert_eq!(
        result(&mine)["result"]["content"][0]["text"],
        "mine",
        "{mine:?}"
    );
    assert_eq!(
        delete(&server, &session, &[("Authorization", alice.as_str())])
            .await
            .status,
        204
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_session_id_longer_than_any_issued_is_refused_at_the_edge() {
    let server = HttpServer::start(FIXTURE, &["--sessions"]).await;
    let session = open(&server, &[]).await.unwrap();
    assert!(session.len() <= 128, "{session}");
    let long = "a".repeat(200 * 1024);
    for headers in [
        vec![VERSION, ("Mcp-Session-Id", long.as_str())],
        vec![VERSION, ("Mcp-Session-Id", &long[..129])],
    ] {
        let refused = server
            .post(&call(2, "echo", json!({"text": "x"})), &headers)
            .await;
        assert_eq!(refused.status, 400, "{}", refused.body);
        assert!(
            refused.body.contains("longer than any session id"),
            "{}",
            refused.body
        );
    }
    // The server serves on, and its own session id still works.
    let answer = server
        .post(
            &call(3, "echo", json!({"text": "still here"})),
            &[VERSION, ("Mcp-Session-Id", session.as_str())],
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.body.contains("still here"), "{}", answer.body);
}
