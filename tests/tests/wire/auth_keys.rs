//! The issuer's keys over time (feature `auth`), on real sockets: the JWKS is read again in
//! the background, every `--auth-jwks-refresh` seconds or sooner when its response's
//! `Cache-Control: max-age` says so; a key the issuer drops is refused from then on, even for
//! a token verified before; a failed read keeps the keys and says so. The JWKS is served here,
//! over loopback HTTP.

use std::time::Duration;

use serde_json::json;
use toolsmith_tests::example_binary;
use toolsmith_tests::http::HttpServer;
use toolsmith_tests::jwks::JwksServer;
use toolsmith_tests::keys::{Key, claims};

const ISSUER: &str = "https://issuer.test/realms/notes";

/// `notes serve --http` trusting the JWKS at `jwks`, with `args` and `env`.
async fn notes(jwks: &JwksServer, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
    let program = example_binary("notes");
    let auth = ["--auth-issuer", ISSUER, "--auth-jwks", jwks.url.as_str()];
    HttpServer::start_with(program.to_str().unwrap(), &[&auth[..], args].concat(), env).await
}

/// The status of `tools/list` with `token`, and the `WWW-Authenticate` challenge if any.
async fn list(server: &HttpServer, token: &str) -> (u16, String) {
    let bearer = format!("Bearer {token}");
    let headers = [
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Authorization", bearer.as_str()),
    ];
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let response = server.post(&body, &headers).await;
    let challenge = response.header("www-authenticate").unwrap_or("").to_owned();
    (response.status, challenge)
}

/// A token for `server` signed by `key`; `subject` makes it a token not seen before.
fn token(server: &HttpServer, key: &Key, subject: &str) -> String {
    let resource = format!("http://{}{}", server.addr, server.path);
    key.sign(&claims(ISSUER, &resource, subject, "tools:read"))
}

/// Waits (at most 10 s) until the server's log holds `text`.
async fn logged(server: &HttpServer, text: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !server.stderr.lock().unwrap().contains(text) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the log never said {text:?}:\n{}",
            server.stderr.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_key_the_issuer_drops_is_refused_after_the_refresh() {
    let (kept, dropped) = (Key::ec("kept"), Key::rsa("dropped"));
    let jwks = JwksServer::start(&[&kept, &dropped]).await;
    let server = notes(&jwks, &["--auth-jwks-refresh", "1"], &[]).await;
    // Both are accepted, and the verifications kept.
    let old = token(&server, &dropped, "alice");
    let other = token(&server, &kept, "bob");
    assert_eq!(list(&server, &old).await.0, 200);
    assert_eq!(list(&server, &other).await.0, 200);
    assert_eq!(list(&server, &old).await.0, 200, "taken from the cache");

    jwks.publish(&[&kept]);
    let fetched = jwks.hits();
    jwks.fetched(fetched + 1, Duration::from_secs(10)).await;
    logged(&server, "no longer trusted").await;
    // The token verified before is now refused: its key is gone.
    let (status, challenge) = list(&server, &old).await;
    assert_eq!(status, 401, "a dropped key's token, verified before");
    assert!(
        challenge.contains("signed by a key this server does not know"),
        "{challenge}"
    );
    assert_eq!(
        list(&server, &token(&server, &dropped, "carol")).await.0,
        401
    );
    // The key still listed still works, cached or not.
    assert_eq!(list(&server, &other).await.0, 200);
    assert_eq!(list(&server, &token(&server, &kept, "dave")).await.0, 200);
}

#[tokio::test]
async fn a_failed_refresh_keeps_the_keys_and_warns() {
    let key = Key::ec("only");
    let jwks = JwksServer::start(&[&key]).await;
    // The interval from the environment this time.
    let server = notes(&jwks, &[], &[("TOOLSMITH_AUTH_JWKS_REFRESH", "1")]).await;
    assert_eq!(list(&server, &token(&server, &key, "alice")).await.0, 200);

    jwks.answer_with(503);
    let fetched = jwks.hits();
    jwks.fetched(fetched + 2, Duration::from_secs(10)).await;
    logged(&server, "authorization keys could not be refreshed").await;
    let log = server.stderr.lock().unwrap().clone();
    let warning = log
        .lines()
        .find(|l| l.contains("could not be refreshed"))
        .unwrap();
    assert!(warning.contains("WARN"), "{warning}");
    assert!(
        warning.contains("the keys read before are kept"),
        "{warning}"
    );
    assert!(warning.contains("503"), "{warning}");
    // A token not seen before still verifies: the keys were kept.
    assert_eq!(list(&server, &token(&server, &key, "bob")).await.0, 200);
}

#[tokio::test]
async fn a_shorter_cache_control_max_age_shortens_the_refresh() {
    let key = Key::ec("only");
    let jwks = JwksServer::start(&[&key]).await;
    jwks.cache_control("public, max-age=1");
    // The default interval is five minutes; the response's max-age asks for one second.
    let server = notes(&jwks, &[], &[]).await;
    assert_eq!(jwks.hits(), 1, "fetched at startup");
    jwks.fetched(3, Duration::from_secs(10)).await;
    // And the refreshes are what they are for: a dropped key is refused.
    let old = token(&server, &key, "alice");
    assert_eq!(list(&server, &old).await.0, 200);
    jwks.publish(&[]);
    logged(&server, "no longer trusted").await;
    assert_eq!(list(&server, &old).await.0, 401);
}
