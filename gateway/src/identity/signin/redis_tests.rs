//! A callback replayed on another replica: two gateways' pages over two stores of one Redis
//! (Debian's `redis-server`, started here on a free loopback port, nothing on disk).

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use toolsmith::context::Caller;
use toolsmith::task::{RedisStore, TaskStore};

use super::fake::Fake;
use super::{SignInClient, UpstreamSignIn};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

/// A redis-server of this test's own (killed when dropped), and its URL.
async fn redis() -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = [
        "/usr/bin/redis-server",
        "/usr/sbin/redis-server",
        "/usr/local/bin/redis-server",
    ]
    .into_iter()
    .find(|p| std::path::Path::new(p).exists())
    .expect("redis-server is not installed: `apt-get install redis-server`");
    let child = tokio::process::Command::new(server)
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ])
        .args(["--appendonly", "no", "--dir"])
        .arg(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("redis-server starts");
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    (child, format!("redis://127.0.0.1:{port}/0"))
}

/// A replica: its own store on the Redis, its own pages, the public callback `public`.
async fn replica(
    fake: &Fake,
    redis: &str,
    public: Option<&str>,
) -> (Arc<SignInClient>, String, Arc<dyn TaskStore>) {
    let store: Arc<dyn TaskStore> = Arc::new(RedisStore::open(redis).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let mut config = UpstreamSignIn::new(KEY);
    if let Some(public) = public {
        config = config.callback_url(format!("{public}/upstream/callback"));
    }
    let client = Arc::new(SignInClient::new(
        "files",
        &format!("{}/mcp", fake.base),
        config,
    ));
    let router = client.routes_at(&origin, store.clone());
    tokio::spawn(async move { toolsmith::axum::serve(listener, router).await });
    (client, origin, store)
}

#[tokio::test]
async fn a_callback_replayed_on_another_replica_sharing_redis_is_refused() {
    crate::tls::install_crypto_provider();
    let (_redis, url) = redis().await;
    let fake = Fake::start().await;
    let (one, origin, store) = replica(&fake, &url, None).await;
    let (two, other, other_store) = replica(&fake, &url, Some(&origin)).await;
    let alice = Caller::new("alice", ["tools:read"]);
    let key = one.token_key(&alice);
    let (state, link) = one.pending(&alice, &key, &store).await.unwrap();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let (authorize, cookie) = super::fake::open_link(&http, &link).await;
    let challenge = authorize
        .query_pairs()
        .find(|(k, _)| k == "code_challenge")
        .unwrap()
        .1
        .into_owned();
    fake.seen().challenge = challenge;
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs([("code", "good-code"), ("state", state.as_str())])
        .finish();
    let callback = |origin: &str| {
        http.get(format!("{origin}/upstream/callback?{query}"))
            .header("Cookie", cookie.clone())
            .send()
    };
    let first = callback(&origin).await.unwrap();
    assert_eq!(first.status(), 200);
    let replayed = callback(&other).await.unwrap();
    assert_eq!(replayed.status(), 400);
    assert!(replayed.text().await.unwrap().contains("already used"));
    assert_eq!(
        fake.seen().token_forms.len(),
        1,
        "the code is redeemed once"
    );
    // The other replica reads the user's token (sealed once, opened there).
    let kept = two
        .kept(&two.token_key(&alice), &other_store)
        .await
        .unwrap();
    assert_eq!(kept.map(|t| t.access).as_deref(), Some("at-1"));
}
