//! The multi round-trip request of 2026-07-28 (SEP-2322): a confirmation, or a tool's
//! `Elicit`/`Sample` question, answers `input_required` with a sealed request state, and the
//! retry carries the answer. Over stdio and stateless HTTP, on both paths; across replicas
//! with one key (raw requests, and rmcp's own client behind a round-robin balancer); and a
//! state that is altered, expired, or made for another call is refused.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_tests::asking::{KEY, accept, meta, modern_call, refused, runs, startup_log, text};
use toolsmith_tests::http::HttpServer;
use toolsmith_tests::raw::{Raw, call};

const ASKING: &str = env!("CARGO_BIN_EXE_asking");

async fn session(env: &[(&str, &str)]) -> Raw {
    toolsmith_tests::asking::session(ASKING, env).await
}

/// At 2026-07-28 over stdio: `input_required` with the question and a sealed state; the
/// retry with an accepting answer runs; every other retry is refused.
#[tokio::test]
async fn at_2026_the_question_travels_in_an_input_required_round() {
    for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
        let mut raw = Raw::program(ASKING, &env);
        let first = raw
            .ask(&modern_call(1, "remove", json!({"item": "the milk"}), None))
            .await;
        let result = &first["result"];
        assert_eq!(result["resultType"], "input_required", "{env:?}: {first}");
        let requests = result["inputRequests"].as_object().unwrap();
        assert_eq!(requests.len(), 1, "exactly one question: {first}");
        let question = &requests["confirm"];
        assert_eq!(question["method"], "elicitation/create");
        assert_eq!(question["params"]["mode"], "form");
        assert_eq!(question["params"]["message"], "Remove the milk?");
        let state = result["requestState"].as_str().unwrap().to_owned();

        let retries = [
            (
                json!({"item": "the milk"}),
                json!({"confirm": {"action": "decline"}}),
                "declined",
            ),
            (
                json!({"item": "the milk"}),
                json!({"confirm": {"action": "cancel"}}),
                "cancelled",
            ),
            (json!({"item": "the milk"}), json!({}), "no answer"),
            (
                json!({"item": "the eggs"}),
                json!({"confirm": accept()}),
                "invalid",
            ),
        ];
        for (i, (args, responses, why)) in retries.into_iter().enumerate() {
            let retry = modern_call(10 + i as u64, "remove", args, Some((&state, responses)));
            let answered = raw.ask(&retry).await;
            assert!(refused(&answered), "{why}: {answered}");
            assert!(text(&answered).contains(why), "{why}: {answered}");
        }
        let mut tampered = state.clone();
        tampered.insert(
            6,
            if tampered.as_bytes()[6] == b'A' {
                'B'
            } else {
                'A'
            },
        );
        let retry = modern_call(
            20,
            "remove",
            json!({"item": "the milk"}),
            Some((&tampered, json!({"confirm": accept()}))),
        );
        let answered = raw.ask(&retry).await;
        assert!(text(&answered).contains("invalid"), "{answered}");
        // A tool that does not confirm ignores a stray state: it runs as ever.
        let retry = modern_call(
            21,
            "purge",
            json!({"everything": true}),
            Some((&state, json!({"confirm": accept()}))),
        );
        assert_eq!(
            raw.ask(&retry).await["result"]["isError"],
            false,
            "purge does not confirm"
        );
        assert_eq!(runs(&mut raw, 22, true).await, 1, "only purge ran");

        let retry = modern_call(
            23,
            "remove",
            json!({"item": "the milk"}),
            Some((&state, json!({"confirm": accept()}))),
        );
        let answered = raw.ask(&retry).await;
        assert_eq!(text(&answered), "removed the milk", "{env:?}: {answered}");
        assert_eq!(answered["result"]["resultType"], "complete");
    }
}

/// A state made for one tool does not confirm another, nor the same tool for a caller's
/// other arguments (`--confirm destructive` makes `purge` confirm too).
#[tokio::test]
async fn a_state_confirms_only_the_tool_it_was_made_for() {
    let mut command = tokio::process::Command::new(ASKING);
    command.args(["serve", "--confirm", "destructive"]);
    let mut raw = Raw::spawn(command, std::process::Stdio::null());
    let first = raw
        .ask(&modern_call(1, "remove", json!({"item": "x"}), None))
        .await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let other_tool = modern_call(
        2,
        "purge",
        json!({"everything": true}),
        Some((&state, json!({"confirm": accept()}))),
    );
    let answered = raw.ask(&other_tool).await;
    assert!(refused(&answered), "{answered}");
    assert!(text(&answered).contains("invalid"), "{answered}");
    assert_eq!(runs(&mut raw, 3, true).await, 0);
}

/// `serve --state-ttl SECS` sets how long a state may be answered.
#[tokio::test]
async fn the_state_ttl_flag_sets_the_expiry() {
    let mut command = tokio::process::Command::new(ASKING);
    command.args(["serve", "--state-ttl", "1"]);
    let mut raw = Raw::spawn(command, std::process::Stdio::null());
    let first = raw
        .ask(&modern_call(1, "remove", json!({"item": "x"}), None))
        .await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let retry = modern_call(
        2,
        "remove",
        json!({"item": "x"}),
        Some((&state, json!({"confirm": accept()}))),
    );
    let answered = raw.ask(&retry).await;
    assert!(text(&answered).contains("expired"), "{answered}");
}

/// A state answered after its expiry is refused as expired.
#[tokio::test]
async fn an_expired_state_is_refused() {
    let mut raw = Raw::program(ASKING, &[("TOOLSMITH_TEST_STATE_TTL_MS", "50")]);
    let first = raw
        .ask(&modern_call(1, "remove", json!({"item": "x"}), None))
        .await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let retry = modern_call(
        2,
        "remove",
        json!({"item": "x"}),
        Some((&state, json!({"confirm": accept()}))),
    );
    let answered = raw.ask(&retry).await;
    assert!(refused(&answered), "{answered}");
    assert!(text(&answered).contains("expired"), "{answered}");
}

fn headers(name: &str) -> [(&'static str, String); 3] {
    [
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", "tools/call".to_owned()),
        ("Mcp-Name", name.to_owned()),
    ]
}

async fn post(server: &HttpServer, body: &Value, name: &str) -> Value {
    let headers = headers(name);
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let response = server.post(body, &headers).await;
    assert_eq!(response.status, 200, "{}", response.body);
    response.messages().pop().expect("an answer")
}

/// Over stateless HTTP at 2026-07-28, the first round may reach one replica and the retry
/// another: with one `--state-key` the retry opens there; with another key it is refused.
#[tokio::test]
async fn replicas_that_share_the_key_accept_each_others_states() {
    for env in [vec![], vec![("TOOLSMITH_TEST_NO_FAST_PATH", "1")]] {
        let a = HttpServer::start_with(ASKING, &["--state-key", KEY], &env).await;
        let b = HttpServer::start_with(ASKING, &["--state-key", KEY], &env).await;
        let other = HttpServer::start_with(ASKING, &[], &env).await;
        let first = post(
            &a,
            &modern_call(1, "remove", json!({"item": "x"}), None),
            "remove",
        )
        .await;
        assert_eq!(
            first["result"]["resultType"], "input_required",
            "{env:?}: {first}"
        );
        let state = first["result"]["requestState"].as_str().unwrap().to_owned();
        let retry = modern_call(
            2,
            "remove",
            json!({"item": "x"}),
            Some((&state, json!({"confirm": accept()}))),
        );
        let elsewhere = post(&other, &retry, "remove").await;
        assert!(text(&elsewhere).contains("invalid"), "{elsewhere}");
        let answered = post(&b, &retry, "remove").await;
        assert_eq!(text(&answered), "removed x", "{env:?}: {answered}");
    }
}

/// Without `--state-key`, the startup log says that the key is this process's own.
#[tokio::test]
async fn without_a_key_the_startup_log_says_replicas_need_one() {
    for (args, said) in [(vec![], true), (vec!["--state-key", KEY], false)] {
        let log = startup_log(ASKING, &args).await;
        assert_eq!(log.contains("no state key"), said, "{args:?}: {log}");
        assert!(!log.contains(KEY), "the key is never logged");
    }
}

/// A tool that asks two questions with `Elicit`: at 2025-11-25 two requests in one call; at
/// 2026-07-28 two rounds, the first answer carried in the state of the second.
#[tokio::test]
async fn elicit_asks_over_a_session_and_in_rounds() {
    let mut raw = session(&[]).await;
    raw.send(&call(1, "order", json!({}))).await;
    for answer in [json!({"size": "large"}), json!({"count": 2})] {
        let asked = raw.next_within(Duration::from_secs(10)).await.unwrap();
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        raw.send(&json!({"jsonrpc": "2.0", "id": asked["id"],
            "result": {"action": "accept", "content": answer}}))
            .await;
    }
    let (_, answered) = raw.until(&json!(1)).await;
    assert_eq!(text(&answered), "2 x large", "{answered}");

    let first = raw.ask(&modern_call(2, "order", json!({}), None)).await;
    let requests = &first["result"]["inputRequests"];
    let size = &requests["ask-1"]["params"];
    assert_eq!(size["message"], "Which size?", "{first}");
    assert_eq!(
        size["requestedSchema"]["properties"]["size"]["oneOf"][1],
        json!({"const": "large", "title": "Large (35 cm)"})
    );
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"ask-1": {"action": "accept", "content": {"size": "small"}}});
    let second = raw
        .ask(&modern_call(3, "order", json!({}), Some((&state, answer))))
        .await;
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    let requests = second["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["ask-2"], "{second}");
    assert_eq!(requests["ask-2"]["params"]["message"], "How many?");
    let state = second["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let answer = json!({"ask-2": {"action": "accept", "content": {"count": 3}}});
    let done = raw
        .ask(&modern_call(4, "order", json!({}), Some((&state, answer))))
        .await;
    assert_eq!(text(&done), "3 x small", "{done}");
}

/// `Sample` asks the client's model: a request over the session, or a round at 2026-07-28;
/// a client without sampling gets a clear error.
#[tokio::test]
async fn sample_asks_the_clients_model() {
    let mut raw = session(&[]).await;
    raw.send(&call(1, "shorten", json!({"text": "a long text"})))
        .await;
    let asked = raw.next_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(asked["method"], "sampling/createMessage", "{asked}");
    assert_eq!(
        asked["params"]["messages"][0]["content"]["text"],
        "Shorten: a long text"
    );
    raw.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "short"}, "model": "m"}}))
        .await;
    let (_, answered) = raw.until(&json!(1)).await;
    assert_eq!(text(&answered), "model says: short", "{answered}");

    let first = raw
        .ask(&modern_call(2, "shorten", json!({"text": "t"}), None))
        .await;
    let question = &first["result"]["inputRequests"]["ask-1"];
    assert_eq!(question["method"], "sampling/createMessage", "{first}");
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"ask-1": {"role": "assistant",
        "content": {"type": "text", "text": "tiny"}, "model": "m"}});
    let done = raw
        .ask(&modern_call(
            3,
            "shorten",
            json!({"text": "t"}),
            Some((&state, answer)),
        ))
        .await;
    assert_eq!(text(&done), "model says: tiny", "{done}");

    let mut no_sampling = modern_call(4, "shorten", json!({"text": "t"}), None);
    no_sampling["params"]["_meta"] = meta(json!({"elicitation": {}}));
    let answered = raw.ask(&no_sampling).await;
    assert_eq!(answered["result"]["isError"], true);
    assert!(text(&answered).contains("`sampling`"), "{answered}");
}

/// rmcp's own client drives the rounds itself (`call_tool`): behind a balancer that sends
/// each request to the next replica, the first round reaches one replica and the retry the
/// other; with one key the call is confirmed and runs, with a key each it is refused.
#[tokio::test]
async fn rmcp_client_rounds_across_two_replicas() {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use toolsmith_tests::Accepting;
    use toolsmith_tests::balance::RoundRobin;

    for (keys, runs) in [
        ([KEY, KEY], true),
        (
            [KEY, "b3RoZXIta2V5LW90aGVyLWtleS1vdGhlci1rZXktb3RoZXI="],
            false,
        ),
    ] {
        let a = HttpServer::start(ASKING, &["--state-key", keys[0]]).await;
        let b = HttpServer::start(ASKING, &["--state-key", keys[1]]).await;
        let replicas = vec![a.addr.parse().unwrap(), b.addr.parse().unwrap()];
        let balancer = RoundRobin::start(replicas).await.unwrap();
        let url = format!("http://{}{}", balancer.addr, a.path);
        // rmcp's reqwest client has rustls without a provider here (toolsmith-gateway's).
        toolsmith_gateway::install_crypto_provider();
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url),
        );
        let user = Accepting::default();
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let client = user
            .clone()
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .expect("the client connects at 2026-07-28");
        let before = balancer.served.lock().unwrap().len();
        let args = json!({"item": "the milk"}).as_object().unwrap().clone();
        let params = rmcp::model::CallToolRequestParams::new("remove").with_arguments(args);
        // `RunningService::call_tool` fulfils each `input_required` round itself.
        let result = client.call_tool(params).await.expect("a result");
        let served = balancer.served.lock().unwrap()[before..].to_vec();
        assert_eq!(served.len(), 2, "one round and its retry: {served:?}");
        assert_ne!(served[0], served[1], "on two replicas: {served:?}");
        assert_eq!(*user.asked.lock().unwrap(), ["Remove the milk?"]);
        if runs {
            assert_eq!(
                toolsmith_tests::text(&result),
                "removed the milk",
                "{result:?}"
            );
        } else {
            assert_eq!(result.is_error, Some(true));
            assert!(
                toolsmith_tests::text(&result).contains("invalid"),
                "{result:?}"
            );
        }
        let _ = client.cancel().await;
    }
}

/// A tool that asks and is not idempotent is named at startup: it runs again with each answer.
#[tokio::test]
async fn a_tool_that_asks_and_is_not_idempotent_is_named_at_startup() {
    let log = startup_log(ASKING, &[]).await;
    let named: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("runs again from its start"))
        .collect();
    assert_eq!(named.len(), 1, "{log}");
    assert!(named[0].contains("tool=\"order\""), "{log}");
}
