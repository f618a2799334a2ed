//! 2026-07-28 over HTTP: the fast path answers complete requests (a call, a first list
//! page, `server/discover`) exactly as rmcp's service does, status, headers and JSON, and
//! leaves everything unusual (a header that does not match the body, a missing `_meta`
//! key, a progress token, an unknown method) to rmcp; and the caching hints are honest:
//! `tools/list` and `server/discover` state a real `ttlMs`, `public` unless the list depends
//! on the caller.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_tests::http::{HttpServer, Response, post};
use toolsmith_tests::keys::{Key, claims, jwks};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const REVISION: &str = "2026-07-28";

/// The `_meta` 2026-07-28 requires (and optional keys).
fn meta(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": REVISION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"},
    });
    meta.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    meta
}

/// A request with `params` (and `_meta` as given), and the headers that go with it.
fn request(id: Value, method: &str, mut params: Value, meta: Option<Value>) -> Value {
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    request(
        json!(id),
        "tools/call",
        json!({"name": name, "arguments": arguments}),
        Some(meta(json!({}))),
    )
}

/// The headers a 2026-07-28 client sends for `body`.
fn headers_for(body: &Value) -> Vec<(String, String)> {
    let mut headers = vec![("MCP-Protocol-Version".to_owned(), REVISION.to_owned())];
    let method = body["method"].as_str().unwrap_or_default();
    headers.push(("Mcp-Method".to_owned(), method.to_owned()));
    if method == "tools/call" {
        let name = body["params"]["name"].as_str().unwrap_or_default();
        headers.push(("Mcp-Name".to_owned(), name.to_owned()));
    }
    headers
}

/// One request of the script: what it tries, its body, and its headers.
type Step = (&'static str, Value, Vec<(String, String)>);

/// The script, the headers as a client sends them or altered.
fn script() -> Vec<Step> {
    let mut script = Vec::new();
    let mut plain = |what, body: Value| {
        let headers = headers_for(&body);
        script.push((what, body, headers));
    };
    plain("a call", call(1, "add", json!({"a": 2, "b": 40})));
    plain("text", call(2, "echo", json!({"text": "héllo \"q\""})));
    plain("a tool error", call(3, "failing", json!({})));
    plain("bad arguments", call(4, "add", json!({"a": "two"})));
    plain("an unknown tool", call(5, "no_such_tool", json!({})));
    plain("content blocks", call(6, "mixed", json!({})));
    plain("structured output", call(7, "whoami", json!({})));
    plain(
        "a string id",
        request(
            json!("s-1"),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
            Some(meta(json!({}))),
        ),
    );
    plain(
        "a log level",
        request(
            json!(8),
            "tools/call",
            json!({"name": "steps", "arguments": {"steps": 1}}),
            Some(meta(json!({"io.modelcontextprotocol/logLevel": "warning"}))),
        ),
    );
    plain(
        "a progress token",
        request(
            json!(9),
            "tools/call",
            json!({"name": "steps", "arguments": {"steps": 2}}),
            Some(meta(json!({"progressToken": "p"}))),
        ),
    );
    plain(
        "the list",
        request(json!(10), "tools/list", json!({}), Some(meta(json!({})))),
    );
    plain(
        "a list cursor",
        request(
            json!(11),
            "tools/list",
            json!({"cursor": "nonsense"}),
            Some(meta(json!({}))),
        ),
    );
    plain(
        "discover",
        request(
            json!(12),
            "server/discover",
            json!({}),
            Some(meta(json!({}))),
        ),
    );
    plain(
        "an unknown method",
        request(json!(13), "no/such", json!({}), Some(meta(json!({})))),
    );
    let incomplete = json!({"io.modelcontextprotocol/protocolVersion": REVISION});
    plain(
        "no client capabilities",
        request(
            json!(14),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
            Some(incomplete),
        ),
    );
    plain(
        "no _meta",
        request(
            json!(15),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
            None,
        ),
    );
    let older = meta(json!({"io.modelcontextprotocol/protocolVersion": "2025-11-25"}));
    plain(
        "an older revision in _meta",
        request(
            json!(16),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
            Some(older),
        ),
    );
    let body = call(17, "add", json!({"a": 1, "b": 1}));
    let mut wrong_method = headers_for(&body);
    wrong_method[1].1 = "tools/list".into();
    script.push(("Mcp-Method mismatch", body.clone(), wrong_method));
    let mut wrong_name = headers_for(&body);
    wrong_name[2].1 = "echo".into();
    script.push(("Mcp-Name mismatch", body.clone(), wrong_name));
    let mut no_name = headers_for(&body);
    no_name.pop();
    script.push(("no Mcp-Name", body.clone(), no_name));
    let mut no_method = headers_for(&body);
    no_method.remove(1);
    script.push(("no Mcp-Method", body.clone(), no_method));
    let mut twice = headers_for(&body);
    twice.push(("Mcp-Method".into(), "tools/call".into()));
    script.push(("Mcp-Method twice", body, twice));
    script
}

async fn send(server: &HttpServer, body: &Value, headers: &[(String, String)]) -> Response {
    let headers: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    post(&server.addr, &server.path, body, &headers).await
}

#[tokio::test]
async fn the_fast_path_answers_2026_exactly_as_rmcp_does() {
    let env = [("TOOLSMITH_LOG", "info,toolsmith=debug")];
    for args in [vec![], vec!["--sse-responses"]] {
        let fast = HttpServer::start_with(FIXTURE, &args, &env).await;
        let rmcp =
            HttpServer::start_with(FIXTURE, &args, &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")]).await;
        for (what, body, headers) in script() {
            let a = send(&fast, &body, &headers).await;
            let b = send(&rmcp, &body, &headers).await;
            let what = format!("{what} {args:?}");
            assert_eq!(a.status, b.status, "{what}: {a:?} / {b:?}");
            for name in ["content-type", "cache-control", "x-accel-buffering"] {
                assert_eq!(a.header(name), b.header(name), "{name} of {what}");
            }
            assert_eq!(a.messages(), b.messages(), "{what}: {a:?} / {b:?}");
            if a.status == 200 && a.header("content-type") == Some("application/json") {
                assert!(!a.messages().is_empty(), "{what}: {a:?}");
            }
        }
        // The complete requests took the fast path: 9 calls, the list and discover.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let logged = fast.stderr.lock().unwrap().clone();
        assert!(
            logged.matches("way=http").count() >= 9,
            "{args:?}: {logged}"
        );
    }
}

fn result(answer: &Response) -> Value {
    answer
        .messages()
        .into_iter()
        .find(|m| m.get("result").is_some())
        .map(|m| m["result"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn lists_and_discover_state_honest_caching_hints() {
    for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
        let server = HttpServer::start_with(FIXTURE, &[], &env).await;
        let list = request(json!(1), "tools/list", json!({}), Some(meta(json!({}))));
        let listed = result(&send(&server, &list, &headers_for(&list)).await);
        assert_eq!(listed["ttlMs"], 300_000, "{env:?}: {listed}");
        assert_eq!(listed["cacheScope"], "public", "{env:?}");
        assert_eq!(listed["resultType"], "complete", "{env:?}");
        let discover = request(
            json!(2),
            "server/discover",
            json!({}),
            Some(meta(json!({}))),
        );
        let found = result(&send(&server, &discover, &headers_for(&discover)).await);
        assert_eq!(found["ttlMs"], 300_000, "{env:?}: {found}");
        assert_eq!(found["cacheScope"], "public", "{env:?}");
        // Earlier revisions get no hints.
        let old = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
        let old = result(
            &server
                .post(&old, &[("MCP-Protocol-Version", "2025-11-25")])
                .await,
        );
        assert!(old.get("ttlMs").is_none(), "{env:?}: {old}");
        assert!(old.get("resultType").is_none(), "{env:?}: {old}");
    }
}

#[tokio::test]
async fn with_authorization_the_list_is_private() {
    const ISSUER: &str = "https://issuer.test";
    let key = Key::ec("ec-1");
    let dir = std::env::temp_dir().join(format!("toolsmith-2026-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let jwks_path = dir.join("jwks.json");
    std::fs::write(&jwks_path, jwks(&[&key])).unwrap();
    let args = [
        "--auth-issuer",
        ISSUER,
        "--auth-jwks",
        jwks_path.to_str().unwrap(),
    ];
    for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
        let server = HttpServer::start_with(FIXTURE, &args, &env).await;
        let resource = format!("http://{}{}", server.addr, server.path);
        let token = key.sign(&claims(ISSUER, &resource, "alice", "tools:read"));
        let bearer = format!("Bearer {token}");
        let list = request(json!(1), "tools/list", json!({}), Some(meta(json!({}))));
        let mut headers = headers_for(&list);
        headers.push(("Authorization".into(), bearer.clone()));
        let listed = result(&send(&server, &list, &headers).await);
        assert_eq!(listed["cacheScope"], "private", "{env:?}: {listed}");
        assert_eq!(listed["ttlMs"], 300_000, "{env:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The confirmation step over HTTP at 2026-07-28 answers alike on the fast path and on
/// rmcp's: with `--confirm write`, `count` asks; the round is the same (its sealed state
/// aside), each path opens the other's state (one `--state-key`), and a forged state or a
/// client that cannot ask is refused the same way.
#[tokio::test]
async fn the_confirmation_step_answers_alike_on_both_paths() {
    let key = toolsmith_tests::asking::KEY;
    let args = ["--confirm", "write", "--state-key", key];
    let fast = HttpServer::start(FIXTURE, &args).await;
    let rmcp =
        HttpServer::start_with(FIXTURE, &args, &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")]).await;
    let asking = |id: u64, retry: Option<(&str, Value)>| {
        let capabilities =
            json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
        let mut params = json!({"name": "count", "arguments": {}});
        if let Some((state, responses)) = retry {
            params["requestState"] = state.into();
            params["inputResponses"] = responses;
        }
        request(json!(id), "tools/call", params, Some(meta(capabilities)))
    };
    let both = |body: Value| {
        let (fast, rmcp) = (&fast, &rmcp);
        async move {
            let headers = headers_for(&body);
            let a = send(fast, &body, &headers).await;
            let b = send(rmcp, &body, &headers).await;
            assert_eq!(a.status, b.status, "{body}: {a:?} / {b:?}");
            (a.messages().pop().unwrap(), b.messages().pop().unwrap())
        }
    };
    // A round: the same question, each with a state of its own.
    let (mut a, mut b) = both(asking(1, None)).await;
    let state_a = a["result"].as_object_mut().unwrap().remove("requestState");
    let state_b = b["result"].as_object_mut().unwrap().remove("requestState");
    assert_eq!(a, b);
    assert_eq!(a["result"]["resultType"], "input_required", "{a}");
    let (state_a, state_b) = (state_a.unwrap(), state_b.unwrap());
    // Each path confirms with the other's state: the key is the replicas', not the path's.
    let accept = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let on_rmcp = send(
        &rmcp,
        &asking(2, Some((state_a.as_str().unwrap(), accept.clone()))),
        &headers_for(&asking(2, None)),
    )
    .await;
    let on_fast = send(
        &fast,
        &asking(2, Some((state_b.as_str().unwrap(), accept))),
        &headers_for(&asking(2, None)),
    )
    .await;
    assert_eq!(on_rmcp.messages(), on_fast.messages());
    assert_eq!(
        on_fast.messages()[0]["result"]["structuredContent"]["result"],
        1,
        "{on_fast:?}"
    );
    // Refused alike: a forged state, and a client that declared no elicitation.
    let forged = json!({"confirm": {"action": "accept"}});
    let (a, b) = both(asking(3, Some(("rs1.AAAA.forged", forged)))).await;
    assert_eq!(a, b);
    assert!(
        a["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("invalid"),
        "{a}"
    );
    let (a, b) = both(call(4, "count", json!({}))).await;
    assert_eq!(a, b);
    assert_eq!(
        a["result"]["_meta"]["dev.toolsmith/error"], "refused",
        "{a}"
    );
}
