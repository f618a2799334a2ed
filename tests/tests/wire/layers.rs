//! Layers around every call: a layer of the program's own sees each call (its tool, caller
//! and arguments) and may refuse it, the tool then not running; `serve --rate-limit` refuses
//! calls past their rate, alike on every stdio path and on both HTTP paths.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use serde_json::{Value, json};
use toolsmith::layer::tower::{self, Service};
use toolsmith::layer::{Call, CallOutcome, Item};
use toolsmith::testing::{CallError, Client};
use toolsmith::{State, error::ErrorKind, tool};
use toolsmith_tests::http::HttpServer;
use toolsmith_tests::raw::Raw;

use crate::harness::{Await, Path, Send as SendLine, call, run};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");

/// Counts its runs.
#[tool(destructive = false, idempotent, closed_world)]
fn tally(runs: State<AtomicU64>, label: String) -> String {
    runs.fetch_add(1, Ordering::SeqCst);
    label
}

/// What the audit layer saw: tool, caller, arguments.
type Seen = Arc<Mutex<Vec<(String, Option<String>, Value)>>>;

#[derive(Clone)]
struct Audit<S> {
    seen: Seen,
    inner: S,
}

impl<S> Service<Call> for Audit<S>
where
    S: Service<Call, Response = CallOutcome, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = CallOutcome;
    type Error = Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<CallOutcome, Infallible>> + Send>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let arguments = Value::Object(call.arguments().cloned().unwrap_or_default());
        let label = arguments["label"].clone();
        self.seen.lock().unwrap().push((
            call.header().name().to_owned(),
            call.caller().subject().map(str::to_owned),
            arguments,
        ));
        if label == "forbidden" {
            return Box::pin(std::future::ready(Ok(CallOutcome::refused(
                "The audit layer refuses this label.",
            ))));
        }
        let answer = self.inner.call(call);
        Box::pin(answer)
    }
}

#[tokio::test]
async fn a_layer_sees_each_call_and_may_refuse_it() {
    let seen = Seen::default();
    let layer_seen = seen.clone();
    let server = toolsmith_tests::server_of(module_path!())
        .state(AtomicU64::new(0))
        .layer(tower::layer::layer_fn(move |inner| Audit {
            seen: layer_seen.clone(),
            inner,
        }));
    let client = Client::connect(server).await.unwrap();
    let passed = client
        .call("tally", json!({"label": "fine"}))
        .await
        .unwrap();
    assert_eq!(passed.text(), "fine");
    let refused = client
        .call("tally", json!({"label": "forbidden"}))
        .await
        .unwrap_err();
    let CallError::Tool {
        kind: ErrorKind::Refused,
        message,
        ..
    } = refused
    else {
        panic!("{refused}")
    };
    assert_eq!(message, "The audit layer refuses this label.");
    let unknown = client.call("no_such_tool", json!({})).await.unwrap_err();
    assert!(
        matches!(unknown, CallError::Protocol { code: -32602, .. }),
        "resolved first"
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            ("tally".to_owned(), None, json!({"label": "fine"})),
            ("tally".to_owned(), None, json!({"label": "forbidden"})),
        ]
    );
    // The refused call did not run.
    let again = client.call("tally", json!({"label": "x"})).await.unwrap();
    assert_eq!(again.text(), "x");
}

/// What the outer layer decides of a call, for the inner one.
#[derive(Clone, Debug, PartialEq)]
struct Tenant(String);

/// Puts the call's tenant (its `label`) on the call, for the layers inside.
#[derive(Clone)]
struct Tag<S>(S);

impl<S> Service<Call> for Tag<S>
where
    S: Service<Call, Response = CallOutcome, Error = Infallible>,
{
    type Response = CallOutcome;
    type Error = Infallible;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, mut call: Call) -> Self::Future {
        let label = call
            .arguments()
            .and_then(|a| a["label"].as_str())
            .map(str::to_owned);
        if let Some(label) = label {
            call.extensions_mut().insert(Tenant(label));
        }
        self.0.call(call)
    }
}

/// Refuses a call whose tenant the outer layer found to be `blocked`; counts what it saw.
#[derive(Clone)]
struct Gate<S>(S, Arc<Mutex<Vec<Option<Tenant>>>>);

impl<S> Service<Call> for Gate<S>
where
    S: Service<Call, Response = CallOutcome, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = CallOutcome;
    type Error = Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<CallOutcome, Infallible>> + Send>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let tenant = call.extensions().get::<Tenant>().cloned();
        self.1.lock().unwrap().push(tenant.clone());
        if tenant == Some(Tenant("blocked".into())) {
            return Box::pin(std::future::ready(Ok(CallOutcome::refused(
                "Blocked tenant.",
            ))));
        }
        Box::pin(self.0.call(call))
    }
}

#[tokio::test]
async fn a_layer_hands_what_it_found_to_the_layers_inside_it() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let gate_seen = seen.clone();
    let server = toolsmith_tests::server_of(module_path!())
        .state(AtomicU64::new(0))
        // The first layer given is the outermost.
        .layer(tower::layer::layer_fn(Tag))
        .layer(tower::layer::layer_fn(move |inner| {
            Gate(inner, gate_seen.clone())
        }));
    let client = Client::connect(server).await.unwrap();
    let fine = client
        .call("tally", json!({"label": "acme"}))
        .await
        .unwrap();
    assert_eq!(fine.text(), "acme");
    let blocked = client
        .call("tally", json!({"label": "blocked"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&blocked, CallError::Tool { kind: ErrorKind::Refused, message, .. } if message == "Blocked tenant."),
        "{blocked}"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [Some(Tenant("acme".into())), Some(Tenant("blocked".into()))]
    );
}

/// The message of the day.
#[toolsmith::resource(uri = "motd://today")]
fn motd() -> String {
    "Ship it.".to_owned()
}

/// A secret no layer lets out.
#[toolsmith::resource(uri = "motd://secret")]
fn secret() -> String {
    "hunter2".to_owned()
}

/// Greets someone.
///
/// # Arguments
/// * `name` - Whom to greet.
#[toolsmith::prompt]
fn greet(name: String) -> String {
    format!("Greet {name}.")
}

/// What a layer saw of a request: its method, its item's name, its URI, its arguments.
type Requests = Arc<Mutex<Vec<(String, String, Option<String>, Value)>>>;

/// Records every request; refuses a read of `motd://secret` and a prompt for `mallory`.
#[derive(Clone)]
struct Watch<S>(S, Requests);

impl<S> Service<Call> for Watch<S>
where
    S: Service<Call, Response = CallOutcome, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = CallOutcome;
    type Error = Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<CallOutcome, Infallible>> + Send>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let arguments = Value::Object(call.arguments().cloned().unwrap_or_default());
        self.1.lock().unwrap().push((
            call.method().to_owned(),
            call.header().name().to_owned(),
            call.uri().map(str::to_owned),
            arguments.clone(),
        ));
        let refused = match call.item() {
            Item::Resource(_) => call.uri() == Some("motd://secret"),
            Item::Prompt(_) => arguments["name"] == "mallory",
            _ => false,
        };
        if refused {
            return Box::pin(std::future::ready(Ok(CallOutcome::refused("Not for you."))));
        }
        Box::pin(self.0.call(call))
    }
}

#[tokio::test]
async fn a_layer_sees_reads_and_prompts_too_and_may_refuse_them() {
    let seen = Requests::default();
    let layer_seen = seen.clone();
    let server = toolsmith_tests::server_of(module_path!())
        .state(AtomicU64::new(0))
        .layer(tower::layer::layer_fn(move |inner| {
            Watch(inner, layer_seen.clone())
        }));
    let client = Client::connect(server).await.unwrap();
    assert_eq!(
        client.read_resource("motd://today").await.unwrap().text(),
        "Ship it."
    );
    let secret = client.read_resource("motd://secret").await.unwrap_err();
    assert!(
        matches!(&secret, CallError::Tool { kind: ErrorKind::Refused, message, .. } if message == "Not for you."),
        "{secret}"
    );
    let prompt = client
        .get_prompt("greet", json!({"name": "Ada"}))
        .await
        .unwrap();
    assert!(format!("{prompt:?}").contains("Greet Ada."), "{prompt:?}");
    let mallory = client
        .get_prompt("greet", json!({"name": "mallory"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&mallory, CallError::Tool { kind: ErrorKind::Refused, message, .. } if message == "Not for you."),
        "{mallory}"
    );
    // Unknown items are answered before the layers, as unknown tools are.
    assert!(client.read_resource("motd://nothing").await.is_err());
    let tally = client.call("tally", json!({"label": "x"})).await.unwrap();
    assert_eq!(tally.text(), "x");
    let seen = seen.lock().unwrap().clone();
    let seen: Vec<(&str, &str, Option<&str>)> = seen
        .iter()
        .map(|(method, name, uri, _)| (method.as_str(), name.as_str(), uri.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            ("resources/read", "motd", Some("motd://today")),
            ("resources/read", "secret", Some("motd://secret")),
            ("prompts/get", "greet", None),
            ("prompts/get", "greet", None),
            ("tools/call", "tally", None),
        ]
    );
}

const RATES: [&str; 2] = ["--rate-limit", "read=100/s,destructive=1/s"];

fn is_refused(response: &Value) -> bool {
    response["result"]["_meta"]["dev.toolsmith/error"] == "refused"
}

#[tokio::test]
async fn the_rate_limit_refuses_alike_on_every_stdio_path() {
    let script = |path: Path| {
        let mut steps = Vec::new();
        for id in 1..=100 {
            steps.push(SendLine(call(path, id, "add", json!({"a": 1, "b": id}))));
        }
        steps.push(Await(100));
        for id in 101..=103 {
            steps.push(SendLine(call(path, id, "wipe", json!({"area": "tmp"}))));
            steps.push(Await(id));
        }
        steps
    };
    let (fast, rmcp, stateless, stateless_rmcp) = tokio::join!(
        run(Path::Fast, &RATES, script(Path::Fast)),
        run(Path::Rmcp, &RATES, script(Path::Rmcp)),
        run(Path::Stateless, &RATES, script(Path::Stateless)),
        run(Path::StatelessRmcp, &RATES, script(Path::StatelessRmcp)),
    );
    for (transcript, path) in [
        (&fast, "fast"),
        (&rmcp, "rmcp"),
        (&stateless, "2026"),
        (&stateless_rmcp, "2026 rmcp"),
    ] {
        let responses = transcript.responses();
        let reads_refused = (1..=100)
            .filter(|id| is_refused(&responses[&id.to_string()]))
            .count();
        assert_eq!(reads_refused, 0, "{path}: 100 reads in a second pass");
        assert!(
            !is_refused(&responses["101"]),
            "{path}: {}",
            responses["101"]
        );
        for id in ["102", "103"] {
            let refused = &responses[id];
            assert!(is_refused(refused), "{path}: {refused}");
            let text = refused["result"]["content"][0]["text"].as_str().unwrap();
            assert!(
                text.starts_with("Rate limit: at most 1 destructive calls per second for this caller; try 'wipe' again in"),
                "{path}: {text}"
            );
        }
    }
}

#[tokio::test]
async fn the_rate_limit_refuses_alike_on_both_http_paths() {
    for env in [&[][..], &[("TOOLSMITH_TEST_NO_FAST_PATH", "1")][..]] {
        let server = HttpServer::start_with(FIXTURE, &RATES, env).await;
        let version = [("MCP-Protocol-Version", "2025-11-25")];
        let wipe = |id| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "wipe", "arguments": {"area": "tmp"}}})
        };
        let first = server.post(&wipe(1), &version).await;
        assert!(!is_refused(&first.messages()[0]), "{env:?}: {}", first.body);
        let second = server.post(&wipe(2), &version).await;
        assert!(
            is_refused(&second.messages()[0]),
            "{env:?}: {}",
            second.body
        );
        let text = second.messages()[0]["result"]["content"][0]["text"].clone();
        assert!(
            text.as_str()
                .unwrap()
                .contains("at most 1 destructive calls per second"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn a_tools_max_concurrency_makes_calls_wait_up_to_their_timeout() {
    let mut raw = Raw::program(FIXTURE, &[]);
    raw.init().await;
    let started = std::time::Instant::now();
    for id in 1..=3 {
        raw.send(&toolsmith_tests::raw::call(id, "solo", json!({"ms": 250})))
            .await;
    }
    let mut answers = std::collections::BTreeMap::new();
    while answers.len() < 3 {
        let frame = raw
            .next_within(std::time::Duration::from_secs(10))
            .await
            .expect("an answer");
        if frame.get("id").is_some() {
            answers.insert(frame["id"].as_u64().unwrap(), frame);
        }
    }
    let text = |id: u64| {
        answers[&id]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // One at a time: the first runs, the second waits for it (250 ms, within its 300 ms) and
    // runs, the third would wait 500 ms: it gives up at its timeout, without running.
    assert_eq!(text(1), "held 250ms");
    assert_eq!(text(2), "held 250ms");
    assert_eq!(
        answers[&3]["result"]["_meta"]["dev.toolsmith/error"],
        "timed_out"
    );
    assert_eq!(
        text(3),
        "tool 'solo' waited 300ms for one of its 1 slots (all busy): it did not run"
    );
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(500),
        "the two ran one after the other"
    );
}

#[tokio::test]
async fn each_caller_has_its_own_rate() {
    let guarded = toolsmith_tests::guarded::Guarded::start(FIXTURE, &RATES).await;
    let (alice, bob) = (
        guarded.token("alice", "tools:destructive"),
        guarded.token("bob", "tools:destructive"),
    );
    let wipe = |id| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "wipe", "arguments": {"area": "tmp"}}})
    };
    let first = guarded.post_as(Some(&alice), &wipe(1)).await;
    assert!(!is_refused(&first.messages()[0]), "{}", first.body);
    let again = guarded.post_as(Some(&alice), &wipe(2)).await;
    assert!(is_refused(&again.messages()[0]), "{}", again.body);
    let other = guarded.post_as(Some(&bob), &wipe(3)).await;
    assert!(
        !is_refused(&other.messages()[0]),
        "bob has his own bucket: {}",
        other.body
    );
    let reader = guarded.token("reader", "tools:read");
    for id in 10..110 {
        let add = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": "add", "arguments": {"a": 1, "b": 2}}});
        let answer = guarded.post_as(Some(&reader), &add).await;
        assert!(
            !is_refused(&answer.messages()[0]),
            "read {id}: {}",
            answer.body
        );
    }
}
