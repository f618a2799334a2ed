//! Token exchange (RFC 8693) through the gateway, on real sockets: `tests/fixtures/fake_sts.py`
//! issues the callers' tokens and exchanges them; the upstream, a toolsmith server over
//! Streamable HTTP, trusts the fake's tokens for its own audience only and answers with the
//! token it sees; the gateway, serving with authorization, mounts it with an `exchange`.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use toolsmith::auth::Auth;
use toolsmith::context::Caller;
use toolsmith_gateway::{Exchange, Upstream};
use toolsmith_tests::guarded::VERSION;
use toolsmith_tests::http::request;

use super::served_over_http;

const FAKE_STS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/fake_sts.py");
/// The upstream's audience, and the gateway's own.
const UPSTREAM_AUDIENCE: &str = "https://tickets.example/mcp";
const GATEWAY_AUDIENCE: &str = "https://gateway.example/mcp";

/// The fake token endpoint, killed when dropped; its client is `gateway` / `sts-secret`.
struct FakeSts {
    _child: tokio::process::Child,
    /// `http://127.0.0.1:PORT`: its issuer.
    url: String,
}

impl FakeSts {
    async fn start() -> FakeSts {
        let mut child = tokio::process::Command::new("python3")
            .arg(FAKE_STS)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("python3 runs the fake token endpoint");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the fake token endpoint listens within 30 s")
            .unwrap()
            .expect("its listening line");
        let url = line.trim_start_matches("listening on ").trim().to_owned();
        FakeSts { _child: child, url }
    }

    async fn get(&self, path: &str) -> Value {
        let addr = self.url.trim_start_matches("http://");
        let response = request(addr, "GET", path, &[], "").await;
        assert_eq!(response.status, 200, "{path}: {}", response.body);
        serde_json::from_str(&response.body).unwrap()
    }

    /// A caller's access token for the gateway, as the provider would have issued it.
    async fn token_for_gateway(&self, sub: &str) -> String {
        let path = format!("/_mint?sub={sub}&aud={GATEWAY_AUDIENCE}&scope=tools:read");
        self.get(&path).await["token"].as_str().unwrap().to_owned()
    }

    /// The token requests it received.
    async fn token_requests(&self) -> Vec<Value> {
        let log = self.get("/_log").await;
        log.as_array()
            .unwrap()
            .iter()
            .filter(|entry| entry["path"] == "/token")
            .cloned()
            .collect()
    }

    fn auth(&self, audience: &str) -> Auth {
        Auth::new(&self.url, format!("{}/jwks", self.url)).audience(audience)
    }
}

/// The token the upstream received, and who it says the caller is.
#[toolsmith::tool(read_only, closed_world)]
fn seen(caller: Caller) -> Value {
    json!({
        "sub": caller.subject(),
        "aud": caller.claim("aud"),
        "act": caller.claim("act"),
        "bearer": caller.bearer(),
    })
}

fn call(id: u64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": {}}})
}

/// The gateway's answer to `token`'s holder calling `tickets_seen`: the tool's result.
async fn call_as(gateway: &str, token: &str, id: u64) -> Value {
    let bearer = format!("Bearer {token}");
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        VERSION,
        ("Authorization", bearer.as_str()),
    ];
    let body = call(id, "tickets_seen").to_string();
    let response = request(gateway, "POST", "/mcp", &headers, &body).await;
    assert_eq!(response.status, 200, "{}", response.body);
    response.messages().last().expect("an answer")["result"].clone()
}

#[tokio::test]
async fn each_caller_reaches_the_upstream_with_their_own_exchanged_token() {
    let sts = FakeSts::start().await;
    let upstream = served_over_http(
        toolsmith_tests::server_of(module_path!()).auth(sts.auth(UPSTREAM_AUDIENCE)),
    )
    .await;
    let exchange = Exchange::new(format!("{}/token", sts.url), "gateway")
        .client_secret("sts-secret")
        .audience(UPSTREAM_AUDIENCE)
        .scopes(["tools:read"]);
    let series = toolsmith::metrics::Series::new();
    let mounted = Upstream::http("tickets", format!("http://{upstream}/mcp"))
        .exchange(exchange)
        .metrics(series.clone())
        .connect()
        .await
        .expect("the gateway lists the upstream's tools as itself");
    // It listed them with its own client_credentials token.
    let requests = sts.token_requests().await;
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert_eq!(requests[0]["form"]["grant_type"], "client_credentials");

    let gateway = served_over_http(
        toolsmith::Server::with_registry(mounted.registry().unwrap())
            .auth(sts.auth(GATEWAY_AUDIENCE)),
    )
    .await;
    let (alice, bob) = (
        sts.token_for_gateway("alice").await,
        sts.token_for_gateway("bob").await,
    );
    for (who, token) in [("alice", &alice), ("bob", &bob), ("alice", &alice)] {
        let result = call_as(&gateway, token, 1).await;
        let seen = &result["structuredContent"]["result"];
        assert_eq!(seen["sub"], who, "{result}");
        assert_eq!(seen["aud"], UPSTREAM_AUDIENCE);
        assert_eq!(seen["act"]["sub"], "gateway");
        // Never the client's own token.
        assert_ne!(seen["bearer"], token.as_str());
        assert_ne!(seen["bearer"], alice.as_str());
        assert_ne!(seen["bearer"], bob.as_str());
    }
    // One exchange per caller: alice's second call used her kept token.
    let requests = sts.token_requests().await;
    let exchanged: Vec<&Value> = requests
        .iter()
        .filter(|r| r["form"]["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange")
        .collect();
    assert_eq!(exchanged.len(), 2, "{requests:#?}");
    assert_eq!(exchanged[0]["form"]["subject_token"], alice.as_str());
    assert_eq!(exchanged[1]["form"]["subject_token"], bob.as_str());

    // Alice comes with a new token of the gateway's: it is exchanged, and her session at the
    // upstream sends the new exchanged token from then on.
    let before =
        call_as(&gateway, &alice, 1).await["structuredContent"]["result"]["bearer"].clone();
    let renewed = sts.token_for_gateway("alice").await;
    assert_ne!(renewed, alice);
    let after = call_as(&gateway, &renewed, 1).await;
    let seen = &after["structuredContent"]["result"];
    assert_eq!(seen["sub"], "alice", "{after}");
    assert_ne!(
        seen["bearer"], before,
        "the session sends the token exchanged for the new one"
    );
    let requests = sts.token_requests().await;
    let last = requests
        .iter()
        .rfind(|r| r["form"]["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange")
        .unwrap();
    assert_eq!(last["form"]["subject_token"], renewed.as_str());

    // A failed exchange is the caller's tool error naming the upstream and the reason.
    sts.get("/_config?answer=html").await;
    let carol = sts.token_for_gateway("carol").await;
    let result = call_as(&gateway, &carol, 2).await;
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(&format!(
            "upstream 'tickets': the token exchange at {}/token answered 502 Bad Gateway with no JSON",
            sts.url
        )),
        "{text}"
    );
    assert_eq!(counted(&series, "tokens_failed_total"), 1.0);
    assert_eq!(counted(&series, "tokens_refused_total"), 0.0);
}

/// The claims of a JWT, read without verification (what the test's upstream was given).
fn payload(token: &str) -> Value {
    use base64::Engine as _;
    let part = token.split('.').nth(1).expect("a JWT");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn a_child_started_per_caller_gets_its_callers_exchanged_token() {
    let sts = FakeSts::start().await;
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/whoami_stdio.py");
    let exchange = Exchange::new(format!("{}/token", sts.url), "gateway")
        .client_secret("sts-secret")
        .audience(UPSTREAM_AUDIENCE);
    // The fixture answers with its USER_SUB and USER_EMAIL: here USER_EMAIL carries the token.
    let mounted = Upstream::stdio("tickets", "python3")
        .arg(fixture)
        .env("USER_SUB", "${caller.subject}")
        .env("USER_EMAIL", "${caller.token}")
        .per_caller(toolsmith_gateway::PerCaller::new())
        .exchange(exchange)
        .connect()
        .await
        .unwrap();
    let gateway = served_over_http(
        toolsmith::Server::with_registry(mounted.registry().unwrap())
            .auth(sts.auth(GATEWAY_AUDIENCE)),
    )
    .await;
    for who in ["alice", "bob"] {
        let token = sts.token_for_gateway(who).await;
        let bearer = format!("Bearer {token}");
        let headers = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            VERSION,
            ("Authorization", bearer.as_str()),
        ];
        let body = call(1, "tickets_whoami").to_string();
        let response = request(&gateway, "POST", "/mcp", &headers, &body).await;
        assert_eq!(response.status, 200, "{}", response.body);
        let result = response.messages().last().unwrap()["result"].clone();
        let said: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(said["sub"], who, "{result}");
        let given = said["email"].as_str().unwrap();
        assert_ne!(given, token, "never the client's own token");
        let claims = payload(given);
        assert_eq!(
            (&claims["sub"], &claims["aud"], &claims["act"]["sub"]),
            (&json!(who), &json!(UPSTREAM_AUDIENCE), &json!("gateway"))
        );
    }
}

#[tokio::test]
async fn a_token_the_upstream_refuses_is_exchanged_once_more_and_then_named() {
    let sts = FakeSts::start().await;
    let upstream = served_over_http(
        toolsmith_tests::server_of(module_path!()).auth(sts.auth(UPSTREAM_AUDIENCE)),
    )
    .await;
    let exchange = Exchange::new(format!("{}/token", sts.url), "gateway")
        .client_secret("sts-secret")
        .audience(UPSTREAM_AUDIENCE)
        .scopes(["tools:read"]);
    let series = toolsmith::metrics::Series::new();
    let mounted = Upstream::http("tickets", format!("http://{upstream}/mcp"))
        .exchange(exchange)
        .metrics(series.clone())
        .connect()
        .await
        .unwrap();
    let gateway = served_over_http(
        toolsmith::Server::with_registry(mounted.registry().unwrap())
            .auth(sts.auth(GATEWAY_AUDIENCE)),
    )
    .await;
    let exchanges = || async {
        sts.token_requests()
            .await
            .iter()
            .filter(|r| r["form"]["grant_type"] != "client_credentials")
            .count()
    };

    // alice's first token is one the upstream does not take: a fresh one is had, and used.
    sts.get("/_config?spoil=1").await;
    let alice = sts.token_for_gateway("alice").await;
    let result = call_as(&gateway, &alice, 1).await;
    assert_eq!(
        result["structuredContent"]["result"]["sub"], "alice",
        "{result}"
    );
    assert_eq!(exchanges().await, 2);
    // Counted by upstream and identity: one refusal, one session.
    assert_eq!(counted(&series, "tokens_refused_total"), 1.0);
    assert_eq!(counted(&series, "sessions_opened_total"), 1.0);

    // bob's are refused twice: a tool error naming the upstream, the caller, the 401.
    sts.get("/_config?spoil=2").await;
    let bob = sts.token_for_gateway("bob").await;
    let result = call_as(&gateway, &bob, 2).await;
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("upstream 'tickets' refused the token it was given for bob (401)")
            && text.contains("not meant for this server (aud)"),
        "{text}"
    );
    assert_eq!(exchanges().await, 4);
    assert_eq!(counted(&series, "tokens_refused_total"), 3.0);
    assert_eq!(counted(&series, "sessions_open"), 1.0, "alice's only");
}

/// The value of the gateway's `toolsmith_gateway_caller_{name}` for upstream `tickets`,
/// whose callers it knows by a token exchange (0 before it was counted).
fn counted(series: &toolsmith::metrics::Series, name: &str) -> f64 {
    let labels = r#"{upstream="tickets",identity="exchange"}"#;
    let wanted = format!("toolsmith_gateway_caller_{name}{labels} ");
    series
        .render()
        .lines()
        .find_map(|line| line.strip_prefix(wanted.as_str()))
        .map_or(0.0, |value| value.trim().parse().expect("a number"))
}

/// An entry's `headers` are the gateway's own credentials (`Credential::without_headers`):
/// its listing sends them, a session acting as a caller never does.
#[tokio::test]
async fn the_entrys_headers_go_with_the_gateways_listing_never_with_a_callers_session() {
    use toolsmith_tests::sniff::{Request, Sniffer};
    let sts = FakeSts::start().await;
    let upstream = served_over_http(
        toolsmith_tests::server_of(module_path!()).auth(sts.auth(UPSTREAM_AUDIENCE)),
    )
    .await;
    // Every request the gateway makes of the upstream, as sent.
    let sniffer = Sniffer::start(upstream.parse().unwrap()).await.unwrap();
    let exchange = Exchange::new(format!("{}/token", sts.url), "gateway")
        .client_secret("sts-secret")
        .audience(UPSTREAM_AUDIENCE)
        .scopes(["tools:read"]);
    let mounted = Upstream::http("tickets", format!("http://{}/mcp", sniffer.addr))
        .header("X-Listing-Key", "listing-secret")
        .exchange(exchange)
        .connect()
        .await
        .unwrap();
    let gateway = served_over_http(
        toolsmith::Server::with_registry(mounted.registry().unwrap())
            .auth(sts.auth(GATEWAY_AUDIENCE)),
    )
    .await;
    let alice = sts.token_for_gateway("alice").await;
    let result = call_as(&gateway, &alice, 1).await;
    let seen = &result["structuredContent"]["result"];
    assert_eq!(seen["sub"], "alice", "{result}");
    let exchanged = format!("Bearer {}", seen["bearer"].as_str().unwrap());

    let requests = sniffer.requests();
    // Whose each request was: the subject of its token (the gateway's own is `gateway`).
    let whose = |r: &Request| {
        let token = r.header("authorization")?.strip_prefix("Bearer ")?;
        payload(token)["sub"].as_str().map(str::to_owned)
    };
    let shown: Vec<String> = requests
        .iter()
        .map(|r| {
            let body = String::from_utf8_lossy(&r.body);
            let key = r.header("x-listing-key");
            format!(
                "{} as {:?}, X-Listing-Key {key:?}: {body}",
                r.method,
                whose(r)
            )
        })
        .collect();
    let keyed = |r: &Request| r.header("x-listing-key") == Some("listing-secret");
    assert!(
        requests
            .iter()
            .any(|r| keyed(r) && whose(r).as_deref() == Some("gateway")),
        "the listing sent the entry's headers: {shown:#?}"
    );
    assert!(
        requests
            .iter()
            .all(|r| r.header("x-listing-key").is_none() || whose(r).as_deref() == Some("gateway")),
        "only the gateway's own session sent them: {shown:#?}"
    );
    assert!(
        requests.iter().any(|r| {
            r.header("authorization") == Some(exchanged.as_str())
                && String::from_utf8_lossy(&r.body).contains("\"tools/call\"")
        }),
        "alice's call went with her exchanged token: {shown:#?}"
    );
}
