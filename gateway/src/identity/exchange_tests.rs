//! The exchange against `tests/fixtures/fake_sts.py` (a token endpoint with RFC 8693), a
//! child process on 127.0.0.1.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use toolsmith::context::Caller;

use super::*;
use crate::identity::token_answer::jwt_payload;

const FAKE_STS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/fake_sts.py");
const AUDIENCE: &str = "https://tickets.example/mcp";

/// The fake token endpoint, killed when dropped; its client is `gateway` / `sts-secret`.
struct Sts {
    child: Child,
    url: String,
    dir: PathBuf,
    http: reqwest::Client,
}

impl Sts {
    /// Starts it; with `keys`, it writes the client's keys (ES256 and RS256) to its folder.
    fn start(name: &str, keys: bool) -> Sts {
        let dir = std::env::temp_dir().join(format!("toolsmith-sts-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut command = Command::new("python3");
        command.arg(FAKE_STS);
        if keys {
            command.arg("--key-dir").arg(&dir).arg("--rsa-client-key");
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the fake token endpoint");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .strip_prefix("listening on ")
            .expect("the fake token endpoint's listening line")
            .trim()
            .to_owned();
        let http = crate::tls::builder(None).unwrap().build().unwrap();
        std::fs::write(dir.join("secret"), "sts-secret\n").unwrap();
        Sts {
            child,
            url,
            dir,
            http,
        }
    }

    fn endpoint(&self) -> String {
        format!("{}/token", self.url)
    }

    /// The exchange of the gateway's client, its secret read from a file.
    fn exchange(&self) -> Exchange {
        Exchange::new(self.endpoint(), "gateway")
            .client_secret(format!("${{file:{}}}", self.dir.join("secret").display()))
            .audience(AUDIENCE)
            .scopes(["tickets:read", "tickets:write"])
    }

    async fn get(&self, path_and_query: &str) -> Value {
        let response = self
            .http
            .get(format!("{}{path_and_query}", self.url))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{path_and_query}");
        serde_json::from_str(&response.text().await.unwrap()).unwrap()
    }

    /// A subject token for `sub`, valid `ttl` seconds (negative: expired).
    async fn mint(&self, sub: &str, ttl: i64) -> String {
        let minted = self.get(&format!("/_mint?sub={sub}&ttl={ttl}")).await;
        minted["token"].as_str().unwrap().to_owned()
    }

    /// The token requests it received.
    async fn token_requests(&self) -> Vec<Value> {
        let log = self.get("/_log").await;
        let log = log.as_array().unwrap();
        log.iter()
            .filter(|entry| entry["path"] == "/token")
            .cloned()
            .collect()
    }
}

impl Drop for Sts {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn claims(token: &UpstreamToken) -> serde_json::Map<String, Value> {
    jwt_payload(&token.access).expect("a JWT")
}

#[tokio::test]
async fn each_callers_token_is_exchanged_for_the_upstreams_audience_and_kept_until_rejected() {
    let sts = Sts::start("exchange", false);
    let exchanger = Exchanger::new(&sts.exchange());
    let (alice_token, bob_token) = (sts.mint("alice", 300).await, sts.mint("bob", 300).await);
    let alice = Caller::new("alice", ["tools:read"]).with_bearer(alice_token.as_str());
    let bob = Caller::new("bob", ["tools:read"]).with_bearer(bob_token.as_str());

    // Two calls of alice at once: one exchange.
    let (first, second) = tokio::join!(
        exchanger.token_for("tickets", &alice),
        exchanger.token_for("tickets", &alice),
    );
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(first.access, second.access);
    assert_eq!(first.subject.as_deref(), Some("alice"));
    assert_eq!(claims(&first)["aud"], AUDIENCE);
    assert_eq!(claims(&first)["act"]["sub"], "gateway");
    let expires = first
        .expires_at
        .unwrap()
        .duration_since(SystemTime::now())
        .unwrap();
    assert!(expires > Duration::from_secs(250) && expires <= Duration::from_secs(300));
    let shown = format!("{first:?}");
    assert!(
        shown.contains("alice") && !shown.contains(&first.access),
        "{shown}"
    );

    let requests = sts.token_requests().await;
    assert_eq!(requests.len(), 1, "{requests:#?}");
    let form = &requests[0]["form"];
    assert_eq!(form["grant_type"], TOKEN_EXCHANGE);
    assert_eq!(form["subject_token"], alice_token.as_str());
    assert_eq!(form["subject_token_type"], ACCESS_TOKEN_TYPE);
    assert_eq!(form["requested_token_type"], ACCESS_TOKEN_TYPE);
    assert_eq!(form["audience"], AUDIENCE);
    assert_eq!(form["resource"], AUDIENCE);
    assert_eq!(form["scope"], "tickets:read tickets:write");
    assert_eq!(requests[0]["client_auth"], "client_secret_basic");
    assert!(form.get("client_secret").is_none() && form.get("client_assertion").is_none());

    // Kept for alice; bob gets his own.
    let again = exchanger.token_for("tickets", &alice).await.unwrap();
    assert_eq!(again.access, first.access);
    let bobs = exchanger.token_for("tickets", &bob).await.unwrap();
    assert_eq!(bobs.subject.as_deref(), Some("bob"));
    assert_eq!(sts.token_requests().await.len(), 2);

    // The upstream refused alice's: forgotten, a fresh one is had.
    exchanger.rejected(&alice);
    let fresh = exchanger.token_for("tickets", &alice).await.unwrap();
    assert_ne!(fresh.access, first.access);
    assert_eq!(sts.token_requests().await.len(), 3);
    // A new token of alice's is exchanged anew.
    let renewed = sts.mint("alice", 300).await;
    let alice = Caller::new("alice", ["tools:read"]).with_bearer(renewed);
    exchanger.token_for("tickets", &alice).await.unwrap();
    assert_eq!(sts.token_requests().await.len(), 4);

    // The gateway's own token: client_credentials, same audience, resource and scopes.
    let own = exchanger.own_token("tickets").await.unwrap();
    assert_eq!(own.subject.as_deref(), Some("gateway"));
    assert_eq!(claims(&own)["aud"], AUDIENCE);
    let requests = sts.token_requests().await;
    let form = &requests[4]["form"];
    assert_eq!(form["grant_type"], "client_credentials");
    assert_eq!(
        (&form["audience"], &form["resource"]),
        (&Value::from(AUDIENCE), &Value::from(AUDIENCE))
    );
    assert_eq!(form["scope"], "tickets:read tickets:write");
    assert!(form.get("subject_token").is_none());
    // Kept.
    let again = exchanger.own_token("tickets").await.unwrap();
    assert_eq!(again.access, own.access);
    assert_eq!(sts.token_requests().await.len(), 5);
}

#[tokio::test]
async fn the_gateway_authenticates_with_a_private_key_jwt_es256_or_rs256() {
    let sts = Sts::start("keys", true);
    let token = sts.mint("alice", 300).await;
    for (alg, file) in [("ES256", "client-es256.pem"), ("RS256", "client-rs256.pem")] {
        let exchange = Exchange::new(sts.endpoint(), "gateway")
            .private_key(format!("${{file:{}}}", sts.dir.join(file).display()))
            .key_id("k1")
            .audience(AUDIENCE);
        let exchanger = Exchanger::new(&exchange);
        let got = exchanger
            .exchanged("tickets", "alice", &token)
            .await
            .unwrap();
        assert_eq!(got.subject.as_deref(), Some("alice"), "{alg}");
        let requests = sts.token_requests().await;
        let request = requests.last().unwrap();
        assert_eq!(request["client_auth"], "private_key_jwt");
        assert_eq!(
            (&request["alg"], &request["kid"]),
            (&Value::from(alg), &Value::from("k1"))
        );
        let assertion = &request["assertion"];
        assert_eq!(
            (&assertion["iss"], &assertion["sub"]),
            (&Value::from("gateway"), &Value::from("gateway"))
        );
        assert_eq!(assertion["aud"], sts.endpoint().as_str());
        assert_eq!(
            assertion["exp"].as_u64().unwrap() - assertion["iat"].as_u64().unwrap(),
            60
        );
        assert_eq!(request["form"]["client_id"], "gateway");
        // The gateway's own token too (a fresh jti: the endpoint refuses a replayed one).
        exchanger.own_token("tickets").await.unwrap();
    }
    assert_eq!(sts.token_requests().await.len(), 4);
}

#[tokio::test]
async fn a_refused_or_broken_exchange_is_an_error_naming_the_upstream_and_the_reason() {
    let sts = Sts::start("errors", false);
    let endpoint = sts.endpoint();
    let mut exchanger = Exchanger::new(&sts.exchange());
    let refused = |err: ToolError, reason: &str| {
        let expected = format!("upstream 'tickets': the token exchange at {endpoint} {reason}");
        assert_eq!(err.message(), expected);
    };

    let no_token = exchanger
        .token_for("tickets", &Caller::anonymous())
        .await
        .unwrap_err();
    assert_eq!(
        no_token.message(),
        "upstream 'tickets' acts as each user, and this caller has no token to exchange: serve the gateway with authorization (--auth-issuer or --signin-*) and call with a token"
    );
    let expired = sts.mint("alice", -10).await;
    let err = exchanger
        .exchanged("tickets", "alice", &expired)
        .await
        .unwrap_err();
    refused(err, "was refused: invalid_grant (subject token expired)");
    let err = exchanger
        .exchanged("tickets", "alice", "not.a.token")
        .await
        .unwrap_err();
    refused(
        err,
        "was refused: invalid_grant (subject token is not a JWT)",
    );
    // Nothing was kept: a good token is exchanged.
    let token = sts.mint("alice", 300).await;
    exchanger
        .exchanged("tickets", "alice", &token)
        .await
        .unwrap();
    assert_eq!(sts.token_requests().await.len(), 3);

    sts.get("/_config?answer=dpop").await;
    let err = exchanger
        .exchanged("tickets", "bob", &token)
        .await
        .unwrap_err();
    refused(
        err,
        "answered a token of type DPoP: the gateway sends Bearer tokens only",
    );
    sts.get("/_config?answer=html").await;
    let err = exchanger
        .exchanged("tickets", "bob", &token)
        .await
        .unwrap_err();
    refused(
        err,
        "answered 502 Bad Gateway with no JSON (text/html): expected a token response (RFC 8693)",
    );
    sts.get("/_config?answer=slow").await;
    exchanger.timeout = Duration::from_millis(300);
    let err = exchanger
        .exchanged("tickets", "bob", &token)
        .await
        .unwrap_err();
    refused(err, "did not answer within 0.3 s");
    sts.get("/_config?answer=jwt").await;

    let wrong = Exchange::new(sts.endpoint(), "gateway").client_secret("wrong");
    let wrong = Exchanger::new(&wrong);
    let err = wrong
        .exchanged("tickets", "alice", &token)
        .await
        .unwrap_err();
    refused(
        err,
        "was refused: invalid_client (unknown client or wrong secret)",
    );
    let err = wrong.own_token("tickets").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "upstream 'tickets': the gateway's own token request (client_credentials) at {endpoint} was refused: invalid_client (unknown client or wrong secret)"
        )
    );

    let missing = Exchange::new(sts.endpoint(), "gateway").client_secret("${file:/no/such/secret}");
    let missing = Exchanger::new(&missing);
    let err = missing
        .exchanged("tickets", "alice", &token)
        .await
        .unwrap_err();
    assert!(
        err.message()
            .contains("client secret: cannot read the secret file /no/such/secret"),
        "{err}"
    );

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let gone =
        Exchange::new(format!("http://127.0.0.1:{port}/token"), "gateway").client_secret("s");
    let gone = Exchanger::new(&gone);
    let err = gone
        .exchanged("tickets", "alice", &token)
        .await
        .unwrap_err();
    assert!(
        err.message().starts_with(&format!("upstream 'tickets': the token exchange at http://127.0.0.1:{port}/token could not be reached: ")),
        "{err}"
    );
    assert!(!err.message().contains(&token));

    // A misconfigured exchange, or a CA file that is not one, fails each request naming it.
    let bare = Exchanger::new(&Exchange::new(sts.endpoint(), "gateway"));
    let err = bare.own_token("tickets").await.unwrap_err().to_string();
    assert_eq!(
        err,
        "upstream 'tickets': the gateway's own token request (client_credentials) is misconfigured: no client credentials: give `client_secret` or `private_key` (the gateway authenticates as its own client)"
    );
    let untrusted = Exchanger::new(&sts.exchange().ca_file("/no/such/ca.pem"));
    let err = untrusted
        .exchanged("tickets", "alice", &token)
        .await
        .unwrap_err();
    assert!(
        err.message()
            .contains("the CA file /no/such/ca.pem cannot be read"),
        "{err}"
    );
}

#[tokio::test]
async fn short_lived_opaque_and_undated_tokens() {
    let sts = Sts::start("lifetimes", false);
    let exchanger = Exchanger::new(&sts.exchange());
    let token = sts.mint("alice", 300).await;

    // Within 30 s of its expiry a token is not used again.
    sts.get("/_config?lifetime=20").await;
    let one = exchanger
        .exchanged("tickets", "alice", &token)
        .await
        .unwrap();
    let two = exchanger
        .exchanged("tickets", "alice", &token)
        .await
        .unwrap();
    assert_ne!(one.access, two.access);

    // Opaque: no subject; its expiry from expires_in; kept.
    sts.get("/_config?lifetime=300&answer=opaque").await;
    let opaque = exchanger.exchanged("tickets", "bob", &token).await.unwrap();
    assert_eq!(opaque.subject, None);
    assert!(opaque.expires_at.unwrap() > SystemTime::now() + Duration::from_secs(250));
    let again = exchanger.exchanged("tickets", "bob", &token).await.unwrap();
    assert_eq!(opaque.access, again.access);

    // Neither expires_in nor exp: no expiry, kept a while.
    sts.get("/_config?answer=noexpiry").await;
    let undated = exchanger
        .exchanged("tickets", "carol", &token)
        .await
        .unwrap();
    assert_eq!(
        (undated.expires_at, undated.subject.as_deref()),
        (None, Some("alice"))
    );
    let again = exchanger
        .exchanged("tickets", "carol", &token)
        .await
        .unwrap();
    assert_eq!(undated.access, again.access);
    assert_eq!(sts.token_requests().await.len(), 4);
}
