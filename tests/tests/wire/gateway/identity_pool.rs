//! `per_caller = true`: a started upstream runs one child per caller, with the caller in
//! its environment, at most `max_callers` at once, each stopped once idle.

use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_tests::guarded::{ISSUER, KeyFile, TempDir, VERSION};
use toolsmith_tests::http::HttpServer;
use toolsmith_tests::keys::claims;

/// The gateway over HTTP with authorization, in front of `whoami_stdio.py` started per
/// caller (at most `max` at once, stopped after `idle` seconds unused).
struct PerCallerGateway {
    server: HttpServer,
    keys: KeyFile,
    _dir: TempDir,
}

impl PerCallerGateway {
    async fn start(max: usize, idle: u64) -> PerCallerGateway {
        let dir = TempDir::new();
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/whoami_stdio.py");
        let config = dir.0.join("gateway.toml");
        std::fs::write(
            &config,
            format!(
                "[servers.who]\ncommand = \"python3\"\nargs = [{fixture:?}]\nper_caller = true\nmax_callers = {max}\nidle_secs = {idle}\nenv = {{ USER_SUB = \"${{caller.subject}}\", USER_EMAIL = \"${{caller.email}}\", USER_ID = \"${{caller.id}}\" }}\n"
            ),
        )
        .unwrap();
        let keys = KeyFile::new();
        let toolsmith = toolsmith_tests::built("toolsmith-cli", "--bin", "toolsmith");
        let config = config.to_str().unwrap();
        let server = HttpServer::start_after(
            toolsmith.to_str().unwrap(),
            &["gateway", "--config", config, "--"],
            &[
                "--auth-issuer",
                ISSUER,
                "--auth-jwks",
                keys.path.as_str(),
                "--metrics-addr",
                "127.0.0.1:0",
            ],
            &[("TOOLSMITH_LOG", "info")],
        )
        .await;
        PerCallerGateway {
            server,
            keys,
            _dir: dir,
        }
    }

    /// `tool` called by `subject` (whose token says its email), its result.
    async fn call(&self, subject: &str, tool: &str, arguments: Value) -> Value {
        let resource = format!("http://{}{}", self.server.addr, self.server.path);
        let mut claims = claims(ISSUER, &resource, subject, "tools:read");
        claims["email"] = json!(format!("{subject}@example.com"));
        claims["email_verified"] = json!(true);
        let bearer = format!("Bearer {}", self.keys.rsa.sign(&claims));
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let response = self
            .server
            .post(&call, &[VERSION, ("Authorization", bearer.as_str())])
            .await;
        assert_eq!(response.status, 200, "{}", response.body);
        response.messages().pop().expect("an answer")["result"].clone()
    }

    /// The value of the gateway's metric `series` (name and labels, as rendered), 0 when it
    /// has none yet.
    async fn metric(&self, series: &str) -> f64 {
        let log = self.server.stderr.clone();
        let addr = tokio::time::timeout(Duration::from_secs(20), async move {
            loop {
                let said = log.lock().unwrap().clone();
                if let Some(url) = said.split("metrics at http://").nth(1) {
                    let end = url.find("/metrics").expect("the metrics' path");
                    return url[..end].to_owned();
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await
        .expect("the gateway says where its metrics are");
        let text = toolsmith_tests::http::request(&addr, "GET", "/metrics", &[], "")
            .await
            .body;
        text.lines()
            .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
            .map_or(0.0, |value| value.trim().parse().expect("a number"))
    }

    /// What `whoami` answers `subject`: its process and environment.
    async fn whoami(&self, subject: &str) -> Value {
        let result = self.call(subject, "who_whoami", json!({})).await;
        assert_eq!(result["isError"], false, "{result}");
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
    }
}

/// Whether process `pid` still runs (a zombie, stopped but not yet reaped, does not).
fn running(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

/// Whether process `pid` stops within `within`.
async fn stops(pid: &Value, within: Duration) -> bool {
    let pid = pid.as_u64().unwrap();
    let until = std::time::Instant::now() + within;
    while std::time::Instant::now() < until {
        if !running(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn two_callers_get_two_children_each_with_its_callers_environment() {
    let gateway = PerCallerGateway::start(4, 300).await;
    let alice = gateway.whoami("alice").await;
    let bob = gateway.whoami("bob").await;
    assert_eq!(alice["sub"], "alice", "{alice}");
    assert_eq!(alice["email"], "alice@example.com", "{alice}");
    assert_eq!(bob["sub"], "bob", "{bob}");
    assert_ne!(alice["pid"], bob["pid"], "one child per caller");
    let id = alice["id"].as_str().unwrap();
    assert!(
        id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "{alice}"
    );
    assert_ne!(alice["id"], bob["id"]);
    // A subject that could leave a path is never put in the environment.
    let refused = gateway.call("../etc", "who_whoami", json!({})).await;
    assert_eq!(refused["isError"], true, "{refused}");
    let said = refused["content"][0]["text"].as_str().unwrap();
    assert!(said.contains("use ${caller.id}"), "{said}");
    // Alice's next call goes to her child again.
    assert_eq!(gateway.whoami("alice").await["pid"], alice["pid"]);
    assert!(running(alice["pid"].as_u64().unwrap()));
}

#[tokio::test]
async fn past_the_bound_a_call_is_refused_while_every_child_is_in_use() {
    let gateway = std::sync::Arc::new(PerCallerGateway::start(2, 300).await);
    let alice = gateway.whoami("alice").await;
    // Alice and Bob each hold their child with a call under way.
    let holding: Vec<_> = ["alice", "bob"]
        .into_iter()
        .map(|subject| {
            let gateway = gateway.clone();
            tokio::spawn(async move { gateway.call(subject, "who_hold", json!({"secs": 3})).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let refused = gateway.call("carol", "who_whoami", json!({})).await;
    assert_eq!(refused["isError"], true, "{refused}");
    let said = refused["content"][0]["text"].as_str().unwrap();
    assert!(
        said.contains("upstream 'who'") && said.contains("2 callers, all in use"),
        "{said}"
    );
    for held in holding {
        assert_eq!(held.await.unwrap()["isError"], false);
    }
    // The metrics say so, by upstream and identity, never by caller.
    let labels = r#"{upstream="who",identity="environment"}"#;
    let metric = |name: &str| format!("toolsmith_gateway_caller_sessions_{name}{labels}");
    assert_eq!(gateway.metric(&metric("refused_total")).await, 1.0);
    assert_eq!(gateway.metric(&metric("opened_total")).await, 2.0);
    assert_eq!(gateway.metric(&metric("open")).await, 2.0);
    // Once one is idle, Carol gets a child: the least recently used one is stopped for it.
    let carol = gateway.whoami("carol").await;
    assert_eq!(carol["sub"], "carol");
    assert!(
        stops(&alice["pid"], Duration::from_secs(5)).await,
        "alice's child, the least recently used, was stopped"
    );
    assert_eq!(gateway.metric(&metric("opened_total")).await, 3.0);
    assert_eq!(
        gateway.metric(&metric("open")).await,
        2.0,
        "alice's was closed"
    );
}

#[tokio::test]
async fn an_idle_child_is_stopped_and_the_next_call_starts_another() {
    let gateway = PerCallerGateway::start(4, 1).await;
    let first = gateway.whoami("alice").await;
    assert!(
        stops(&first["pid"], Duration::from_secs(6)).await,
        "the idle child was stopped"
    );
    let second = gateway.whoami("alice").await;
    assert_ne!(second["pid"], first["pid"], "a new child");
    assert_eq!(second["sub"], "alice");
}

/// `[servers.NAME.mint]`: the gateway signs users in itself and mints each caller a token
/// of the upstream's audience, here put in the environment of the caller's own child.
#[tokio::test]
async fn a_minted_token_names_the_caller_for_the_upstreams_audience_and_is_the_gateways() {
    use crate::signin::{Signin, claims as claims_of};
    let dir = TempDir::new();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/whoami_stdio.py");
    let config = dir.0.join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[servers.who]\ncommand = \"python3\"\nargs = [{fixture:?}]\nper_caller = true\nenv = {{ USER_TOKEN = \"${{caller.token}}\" }}\n[servers.who.mint]\naudience = \"https://who.internal/mcp\"\nscopes = [\"who:read\"]\nlifetime_secs = 120\n"
        ),
    )
    .unwrap();
    let toolsmith = toolsmith_tests::built("toolsmith-cli", "--bin", "toolsmith");
    let before = ["gateway", "--config", config.to_str().unwrap(), "--"];
    let signin = Signin::launch(toolsmith.to_str().unwrap(), &before, "alice", &[]).await;
    let tokens = signin.tokens(&["tools:read"]).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "who_whoami", "arguments": {}}});
    let response = signin.mcp(&tokens.access, &call).await;
    let result = response.messages().pop().unwrap()["result"].clone();
    assert_eq!(result["isError"], false, "{result}");
    let said: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    let minted = said["token"].as_str().unwrap();
    assert_ne!(minted, tokens.access, "never the client's own token");
    // Signed by the gateway's own keys, for the upstream's audience, naming the caller.
    let jwks: jsonwebtoken::jwk::JwkSet =
        serde_json::from_value(signin.json("/oauth/jwks").await).unwrap();
    let kid = jsonwebtoken::decode_header(minted).unwrap().kid.unwrap();
    let key = jsonwebtoken::DecodingKey::from_jwk(jwks.find(&kid).unwrap()).unwrap();
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    validation.set_audience(&["https://who.internal/mcp"]);
    validation.set_issuer(&[&signin.issuer]);
    let verified = jsonwebtoken::decode::<Value>(minted, &key, &validation)
        .expect("a token of the gateway's")
        .claims;
    let own = claims_of(&tokens.access);
    assert_eq!(verified["sub"], own["sub"], "{verified}");
    assert_eq!(verified["idp"], own["idp"]);
    assert_eq!(verified["scope"], "who:read");
    assert_eq!(verified["act"]["sub"], signin.issuer.as_str());
    assert!(verified["exp"].as_u64().unwrap() <= toolsmith_tests::keys::now() + 121);
}
