//! Resources and prompts served for real: over stdio, subscriptions and the updates a tool
//! sends through `Resources` (and none after unsubscribing); the capabilities a server
//! states only for what it has; over HTTP, stateless reads and prompts, subscriptions only
//! in a session (whose stream carries the updates); with authorization, the read scope or
//! an item's own scopes, and lists filtered per caller.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_tests::asking::{open_session, read_until, session_headers, stream_in_session};
use toolsmith_tests::guarded::Guarded;
use toolsmith_tests::http::HttpServer;
use toolsmith_tests::raw::{Raw, call};
use toolsmith_tests::{example_binary, initialize};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");
const ASKING: &str = env!("CARGO_BIN_EXE_asking");

fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn notes() -> String {
    example_binary("notes").to_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_subscriber_hears_of_updates_until_it_unsubscribes() {
    let mut raw = Raw::program(&notes(), &[]);
    raw.init().await;
    let subscribed = raw
        .ask(&rpc(
            1,
            "resources/subscribe",
            json!({"uri": "notes://index"}),
        ))
        .await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    let unknown = raw
        .ask(&rpc(
            2,
            "resources/subscribe",
            json!({"uri": "elsewhere://x"}),
        ))
        .await;
    assert_eq!(unknown["error"]["code"], -32002, "{unknown}");

    let create = call(3, "create_note", json!({"title": "New", "body": "one"}));
    raw.send(&create).await;
    let (mut frames, created) = raw.until(&json!(3)).await;
    assert_eq!(created["result"]["isError"], false, "{created}");
    // The update is sent in the background: it may follow the result.
    while !frames
        .iter()
        .any(|f| f["method"] == "notifications/resources/updated")
    {
        let next = raw.next_within(Duration::from_secs(5)).await;
        frames.push(next.expect("an update within 5 s"));
    }
    let update = frames
        .iter()
        .find(|f| f["method"] == "notifications/resources/updated")
        .unwrap();
    assert_eq!(update["params"], json!({"uri": "notes://index"}));

    let unsubscribed = raw
        .ask(&rpc(
            4,
            "resources/unsubscribe",
            json!({"uri": "notes://index"}),
        ))
        .await;
    assert_eq!(unsubscribed["result"], json!({}));
    let (before, _) = {
        raw.send(&call(
            5,
            "create_note",
            json!({"title": "Two", "body": "b"}),
        ))
        .await;
        raw.until(&json!(5)).await
    };
    let after = raw.next_within(Duration::from_millis(300)).await;
    let heard: Vec<&Value> = before.iter().chain(after.iter()).collect();
    assert!(
        !heard
            .iter()
            .any(|f| f["method"] == "notifications/resources/updated"),
        "no update after unsubscribing: {heard:?}"
    );
}

#[tokio::test]
async fn capabilities_name_only_what_the_server_has() {
    let mut notes = Raw::program(&notes(), &[]);
    let answer = notes.ask(&initialize(0, "2025-11-25")).await;
    let capabilities = &answer["result"]["capabilities"];
    assert_eq!(
        capabilities["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(capabilities["prompts"], json!({}));
    assert_eq!(capabilities["completions"], json!({}));

    let mut bare = Raw::program(ASKING, &[]);
    let answer = bare.ask(&initialize(0, "2025-11-25")).await;
    let capabilities = answer["result"]["capabilities"].as_object().unwrap();
    for absent in ["resources", "prompts", "completions"] {
        assert!(
            !capabilities.contains_key(absent),
            "{absent}: {capabilities:?}"
        );
    }
    assert!(capabilities.contains_key("tools"));
    let list = bare.ask(&rpc(1, "resources/list", json!({}))).await;
    assert_eq!(list["error"]["code"], -32601, "{list}");
}

#[tokio::test]
async fn stateless_http_reads_and_prompts_and_refuses_to_subscribe() {
    let server = HttpServer::start(FIXTURE, &[]).await;
    let version = [("MCP-Protocol-Version", "2025-11-25")];
    let init = server.post(&initialize(0, "2025-11-25"), &[]).await;
    let capabilities = &init.messages()[0]["result"]["capabilities"];
    assert_eq!(
        capabilities["resources"]["subscribe"], false,
        "{capabilities}"
    );
    let read = server
        .post(
            &rpc(1, "resources/read", json!({"uri": "fixture://numbers/3"})),
            &version,
        )
        .await;
    assert_eq!(read.status, 200, "{}", read.body);
    assert_eq!(
        read.messages()[0]["result"]["contents"][0]["text"],
        "{\"n\":3,\"square\":9}"
    );
    let prompt = server
        .post(
            &rpc(
                2,
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Bo"}}),
            ),
            &version,
        )
        .await;
    assert_eq!(
        prompt.messages()[0]["result"]["messages"][0]["content"]["text"],
        "Greet Bo, warmly."
    );
    let complete = server
        .post(
            &rpc(3, "completion/complete", json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style", "value": "f"}})),
            &version,
        )
        .await;
    assert_eq!(
        complete.messages()[0]["result"]["completion"]["values"],
        json!(["formal"])
    );
    let subscribe = server
        .post(
            &rpc(4, "resources/subscribe", json!({"uri": "fixture://motd"})),
            &version,
        )
        .await;
    let refused = &subscribe.messages()[0]["error"];
    assert_eq!(refused["code"], -32600, "{}", subscribe.body);
    assert!(
        refused["message"].as_str().unwrap().contains("--sessions"),
        "{refused}"
    );
}

#[tokio::test]
async fn in_an_http_session_updates_reach_the_session_stream() {
    let server = HttpServer::start(&notes(), &["--sessions"]).await;
    let session = open_session(&server, json!({})).await;
    let headers = session_headers(&session);
    let subscribe = rpc(1, "resources/subscribe", json!({"uri": "notes://index"}));
    let subscribed = server.post(&subscribe, &headers).await;
    assert_eq!(
        subscribed.messages()[0]["result"],
        json!({}),
        "{}",
        subscribed.body
    );
    let mut stream = stream_in_session(&server, &session, None).await;
    // Give the GET stream a moment to be the session's before the update is sent.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let created = server
        .post(
            &call(2, "create_note", json!({"title": "t", "body": "b"})),
            &headers,
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.body);
    let mut seen = String::new();
    let update = read_until(&mut stream, &mut seen, "notifications/resources/updated").await;
    assert_eq!(update["params"]["uri"], "notes://index");
}

#[tokio::test]
async fn reading_needs_the_read_scope_or_the_items_own() {
    let guarded = Guarded::start(FIXTURE, &[]).await;
    let reader = guarded.token("reader", "tools:read");
    let admin = guarded.token("admin", "tools:read billing:admin");
    let nobody = guarded.token("nobody", "profile");

    let motd = rpc(1, "resources/read", json!({"uri": "fixture://motd"}));
    let read = guarded.post_as(Some(&reader), &motd).await;
    assert_eq!(
        read.messages()[0]["result"]["contents"][0]["text"],
        "Be kind."
    );
    let refused = guarded.post_as(Some(&nobody), &motd).await;
    let error = &refused.messages()[0]["error"];
    assert_eq!(error["code"], -32003, "{}", refused.body);
    assert!(
        error["message"].as_str().unwrap().contains("tools:read"),
        "{error}"
    );

    let ledger = rpc(2, "resources/read", json!({"uri": "fixture://ledger"}));
    let refused = guarded.post_as(Some(&reader), &ledger).await;
    assert_eq!(refused.messages()[0]["error"]["code"], -32003);
    let allowed = guarded.post_as(Some(&admin), &ledger).await;
    assert_eq!(
        allowed.messages()[0]["result"]["contents"][0]["text"],
        "all paid"
    );

    let list = rpc(3, "resources/list", json!({}));
    let uris = |response: &toolsmith_tests::http::Response| -> Vec<String> {
        response.messages()[0]["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap().to_owned())
            .collect()
    };
    let for_reader = uris(&guarded.post_as(Some(&reader), &list).await);
    assert!(
        for_reader.contains(&"fixture://motd".to_owned()),
        "{for_reader:?}"
    );
    assert!(
        !for_reader.contains(&"fixture://ledger".to_owned()),
        "{for_reader:?}"
    );
    let for_admin = uris(&guarded.post_as(Some(&admin), &list).await);
    assert!(
        for_admin.contains(&"fixture://ledger".to_owned()),
        "{for_admin:?}"
    );
    let for_nobody = uris(&guarded.post_as(Some(&nobody), &list).await);
    assert!(for_nobody.is_empty(), "{for_nobody:?}");

    let me = rpc(4, "resources/read", json!({"uri": "fixture://me"}));
    let who = guarded.post_as(Some(&reader), &me).await;
    let text = who.messages()[0]["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["subject"],
        "reader"
    );

    let prompt = rpc(
        5,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "X"}}),
    );
    let refused = guarded.post_as(Some(&nobody), &prompt).await;
    assert_eq!(refused.messages()[0]["error"]["code"], -32003);
    let prompts = guarded
        .post_as(Some(&nobody), &rpc(6, "prompts/list", json!({})))
        .await;
    assert_eq!(prompts.messages()[0]["result"]["prompts"], json!([]));
}

/// A 2026-07-28 request: its `_meta` carries the client context.
fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test-client", "version": "0"},
    });
    rpc(id, method, params)
}

#[tokio::test]
async fn on_2026_a_listen_stream_hears_the_uris_it_asked_for() {
    let mut raw = Raw::program(&notes(), &[]);
    let listen = modern(
        1,
        "subscriptions/listen",
        json!({"notifications": {
            "resourceSubscriptions": ["notes://index", "nowhere://x"],
            "resourcesListChanged": true,
        }}),
    );
    raw.send(&listen).await;
    let ack = raw
        .next_within(Duration::from_secs(10))
        .await
        .expect("an acknowledgment");
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["notifications"]["resourceSubscriptions"],
        json!(["notes://index", "nowhere://x"]),
        "the acknowledgment tells nobody which URIs exist"
    );
    // rmcp sends the acknowledgment before it hands the stream to the server, which then
    // starts listening: a note created in between is not heard (a known race, in the closing
    // note of [4/7]). A note is created again, at most three times, until one is heard.
    let mut heard = Vec::new();
    for attempt in 0..3u64 {
        let create = modern(
            2 + attempt,
            "tools/call",
            json!({"name": "create_note", "arguments": {"title": "a", "body": "b"}}),
        );
        raw.send(&create).await;
        let mut answered = false;
        while !answered {
            let frame = raw
                .next_within(Duration::from_secs(5))
                .await
                .expect("an answer or an update within 5 s");
            answered = frame["id"] == json!(2 + attempt);
            heard.push(frame);
        }
        // An update may follow the call's answer.
        if !heard
            .iter()
            .any(|f| f["method"] == "notifications/resources/updated")
            && let Some(frame) = raw.next_within(Duration::from_millis(500)).await
        {
            heard.push(frame);
        }
        if heard
            .iter()
            .any(|f| f["method"] == "notifications/resources/updated")
        {
            break;
        }
    }
    let update = heard
        .iter()
        .find(|f| f["method"] == "notifications/resources/updated")
        .expect("an update after one of three new notes");
    assert_eq!(update["params"]["uri"], "notes://index");
    assert_eq!(
        update["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
    );
}

#[tokio::test]
async fn a_session_that_listed_resources_hears_that_the_list_changed() {
    let mut raw = Raw::program(FIXTURE, &[]);
    raw.init().await;
    let list = raw.ask(&rpc(1, "resources/list", json!({}))).await;
    assert!(list["result"]["resources"].is_array(), "{list}");
    raw.send(&call(2, "announce", json!({"uri": "fixture://motd"})))
        .await;
    let (mut frames, _) = raw.until(&json!(2)).await;
    while !frames
        .iter()
        .any(|f| f["method"] == "notifications/resources/list_changed")
    {
        frames.push(
            raw.next_within(Duration::from_secs(5))
                .await
                .expect("list_changed within 5 s"),
        );
    }
    assert!(
        !frames
            .iter()
            .any(|f| f["method"] == "notifications/resources/updated"),
        "nobody subscribed to fixture://motd: {frames:?}"
    );
}

#[tokio::test]
async fn a_session_subscribes_to_a_bounded_number_of_uris() {
    let mut raw = Raw::program(&notes(), &[]);
    raw.init().await;
    for n in 1..=1024 {
        raw.send(&rpc(
            n,
            "resources/subscribe",
            json!({"uri": format!("notes://{n}")}),
        ))
        .await;
    }
    // Every subscription answered (a session may answer them out of order), each accepted.
    let mut answered = std::collections::HashSet::new();
    while answered.len() < 1024 {
        let frame = raw
            .next_within(std::time::Duration::from_secs(20))
            .await
            .expect("every subscription is answered");
        if frame.get("method").is_none() {
            assert_eq!(frame["result"], json!({}), "{frame}");
            answered.insert(frame["id"].clone());
        }
    }
    let again = raw
        .ask(&rpc(
            2000,
            "resources/subscribe",
            json!({"uri": "notes://1"}),
        ))
        .await;
    assert_eq!(
        again["result"],
        json!({}),
        "subscribing again to one is not one more"
    );
    let refused = raw
        .ask(&rpc(
            2001,
            "resources/subscribe",
            json!({"uri": "notes://5000"}),
        ))
        .await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("1024"), "{message}");
    let freed = raw
        .ask(&rpc(
            2002,
            "resources/unsubscribe",
            json!({"uri": "notes://7"}),
        ))
        .await;
    assert_eq!(freed["result"], json!({}));
    let room = raw
        .ask(&rpc(
            2003,
            "resources/subscribe",
            json!({"uri": "notes://5000"}),
        ))
        .await;
    assert_eq!(room["result"], json!({}), "{room}");
}

#[tokio::test]
async fn a_completion_that_takes_too_long_is_answered_at_its_timeout() {
    let mut raw = Raw::program(FIXTURE, &[]);
    raw.init().await;
    let started = std::time::Instant::now();
    let complete = rpc(
        1,
        "completion/complete",
        json!({
            "ref": {"type": "ref/prompt", "name": "patient"},
            "argument": {"name": "x", "value": ""},
        }),
    );
    let answer = raw.ask(&complete).await;
    let error = &answer["error"];
    assert_eq!(
        error["message"], "completing 'x' took longer than 5s",
        "{answer}"
    );
    assert_eq!(error["data"]["dev.toolsmith/error"], "timed_out");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
}

/// A subscribed URI is at most 4 KiB long: a longer one (that its template matches) is
/// refused, and the session goes on.
#[tokio::test]
async fn a_subscribed_uri_is_at_most_four_kib() {
    let mut raw = Raw::program(FIXTURE, &[]);
    raw.init().await;
    let long = format!("fixture://numbers/{}", "1".repeat(5000));
    let refused = raw
        .ask(&rpc(1, "resources/subscribe", json!({"uri": long})))
        .await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("4096 bytes"), "{message}");
    let short = raw
        .ask(&rpc(
            2,
            "resources/subscribe",
            json!({"uri": "fixture://numbers/7"}),
        ))
        .await;
    assert_eq!(short["result"], json!({}), "{short}");
}

/// On 2026-07-28 over stateless HTTP, a listen stream is acknowledged with no resource
/// subscription: an update made on another replica could never reach it, so none is
/// promised (over stdio the same request subscribes; see above).
#[tokio::test]
async fn over_stateless_http_a_listen_stream_subscribes_to_nothing() {
    use tokio::io::AsyncWriteExt;
    let guarded = Guarded::start(FIXTURE, &[]).await;
    let reader = guarded.token("reader", "tools:read");
    let listen = modern(
        1,
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": ["fixture://ledger", "fixture://motd"]}}),
    );
    let body = listen.to_string();
    let server = &guarded.server;
    let head = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {reader}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        server.path,
        server.addr,
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut seen = String::new();
    let ack = read_until(
        &mut stream,
        &mut seen,
        "notifications/subscriptions/acknowledged",
    )
    .await;
    assert_eq!(ack["params"]["notifications"], json!({}), "{ack}");
}
