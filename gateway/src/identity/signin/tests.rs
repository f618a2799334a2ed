//! The sign-in against a fake upstream with its own authorization server (`fake.rs`): the
//! start page, the callback and its refusals, the tokens sealed (refreshed and revoked:
//! `refresh_tests.rs`).

use std::sync::Arc;

use toolsmith::context::Caller;
use toolsmith::task::{MemoryStore, TaskStore};

use super::fake::Fake;
use super::{SignInClient, UpstreamSignIn, digest};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

/// A gateway's side: the sign-in client of the fake's `/mcp`, its pages served on a port of
/// their own, over `store`.
pub(super) struct Gateway {
    pub(super) client: Arc<SignInClient>,
    pub(super) origin: String,
    pub(super) store: Arc<dyn TaskStore>,
}

impl Gateway {
    pub(super) async fn start(fake: &Fake, store: Arc<dyn TaskStore>) -> Gateway {
        Gateway::start_with(fake, store, None).await
    }

    async fn start_with(fake: &Fake, store: Arc<dyn TaskStore>, public: Option<&str>) -> Gateway {
        crate::tls::install_crypto_provider();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let mcp = format!("{}/mcp", fake.base);
        let mut config = UpstreamSignIn::new(KEY);
        if let Some(public) = public {
            config = config.callback_url(format!("{public}/upstream/callback"));
        }
        let client = Arc::new(SignInClient::new("files", &mcp, config));
        client.ready().unwrap();
        let router = client.routes_at(&origin, store.clone());
        tokio::spawn(async move { toolsmith::axum::serve(listener, router).await });
        Gateway {
            client,
            origin,
            store,
        }
    }

    /// Another replica: its own client and pages, the same store and public URL.
    pub(super) async fn replica(&self, fake: &Fake) -> Gateway {
        Gateway::start_with(fake, self.store.clone(), Some(&self.origin)).await
    }

    /// `caller`'s sign-in link.
    pub(super) async fn link(&self, caller: &Caller) -> (String, String) {
        let key = self.client.token_key(caller);
        self.client
            .pending(caller, &key, &self.store)
            .await
            .unwrap()
    }

    pub(super) async fn token_of(&self, caller: &Caller) -> Option<String> {
        let key = self.client.token_key(caller);
        let tokens = self.client.kept(&key, &self.store).await.unwrap();
        tokens.map(|t| t.access)
    }
}

pub(super) fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Opens the start page `link` and continues: the authorize URL it sends to and the cookie.
async fn open_start(link: &str) -> (url::Url, String) {
    super::fake::open_link(&http(), link).await
}

pub(super) fn param(url: &url::Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// `GET /upstream/callback?QUERY` with `cookie`: its status and page.
pub(super) async fn callback(origin: &str, query: &str, cookie: Option<&str>) -> (u16, String) {
    let mut request = http().get(format!("{origin}/upstream/callback?{query}"));
    if let Some(cookie) = cookie {
        request = request.header("Cookie", cookie);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

/// `caller` signed in at `gateway`: the start page, the fake's code, the callback.
pub(super) async fn signed_in(gateway: &Gateway, fake: &Fake, caller: &Caller) {
    let (state, link) = gateway.link(caller).await;
    let (authorize, cookie) = open_start(&link).await;
    fake.seen().challenge = param(&authorize, "code_challenge").unwrap();
    let q = query(&[("code", "good-code"), ("state", &state)]);
    assert_eq!(callback(&gateway.origin, &q, Some(&cookie)).await.0, 200);
}

pub(super) fn query(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

#[tokio::test]
async fn a_user_signs_in_through_the_start_page_and_the_callback_keeps_sealed_tokens() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let alice = Caller::new("alice", ["tools:read"]);
    let (state, link) = gateway.link(&alice).await;
    assert!(
        link.starts_with(&format!("{}/upstream/start?s=", gateway.origin)),
        "{link}"
    );
    assert_eq!(
        gateway.link(&alice).await.1,
        link,
        "the same link while it lasts"
    );

    let (authorize, cookie) = open_start(&link).await;
    assert!(
        authorize
            .as_str()
            .starts_with(&format!("{}/authorize?", fake.base))
    );
    let callback_url = format!("{}/upstream/callback", gateway.origin);
    let mcp = format!("{}/mcp", fake.base);
    for (name, value) in [
        ("response_type", "code"),
        ("client_id", "dyn-1"),
        ("redirect_uri", callback_url.as_str()),
        ("code_challenge_method", "S256"),
        ("resource", mcp.as_str()),
        ("scope", "files:read"),
        ("state", state.as_str()),
    ] {
        assert_eq!(param(&authorize, name).as_deref(), Some(value), "{name}");
    }
    fake.seen().challenge = param(&authorize, "code_challenge").unwrap();

    let q = query(&[("code", "good-code"), ("state", &state)]);
    let (status, page) = callback(&gateway.origin, &q, Some(&cookie)).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("signed in to &#39;files&#39;"), "{page}");
    let form = fake.seen().token_forms[0].clone();
    assert_eq!(form["grant_type"], "authorization_code");
    assert_eq!(form["redirect_uri"], callback_url);
    assert_eq!(form["resource"], mcp);
    assert_eq!(form["client_id"], "dyn-1");

    // Kept sealed: the store holds no token in the clear.
    let key = gateway.client.token_key(&alice);
    let raw = gateway.store.read(&key).await.unwrap().unwrap();
    assert!(!raw.contains("at-1") && !raw.contains("rt-1"), "{raw}");
    assert!(key.ends_with(&digest(alice.identity())));
    assert_eq!(gateway.token_of(&alice).await.as_deref(), Some("at-1"));
    assert_eq!(
        gateway.token_of(&Caller::new("bob", ["tools:read"])).await,
        None
    );

    // Replayed, here or on another replica sharing the store: refused, nothing changes.
    let (status, page) = callback(&gateway.origin, &q, Some(&cookie)).await;
    assert!(
        status == 400 && page.contains("already used"),
        "{status} {page}"
    );
    let replica = gateway.replica(&fake).await;
    let (status, page) = callback(&replica.origin, &q, Some(&cookie)).await;
    assert!(
        status == 400 && page.contains("already used"),
        "{status} {page}"
    );
    assert_eq!(
        fake.seen().token_forms.len(),
        1,
        "the code is redeemed once"
    );
    // The replica shares the registered client and the tokens.
    assert_eq!(replica.token_of(&alice).await.as_deref(), Some("at-1"));
    let bob = Caller::new("bob", ["tools:read"]);
    let (_, link) = replica.link(&bob).await;
    let (authorize, _) = open_start(&link).await;
    assert_eq!(param(&authorize, "client_id").as_deref(), Some("dyn-1"));
    assert_eq!(fake.seen().registrations, 1, "registered once per upstream");
}

#[tokio::test]
async fn a_tampered_state_a_missing_cookie_and_a_refusal_are_error_pages_keeping_nothing() {
    let fake = Fake::start().await;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let alice = Caller::new("alice", ["tools:read"]);
    let (state, link) = gateway.link(&alice).await;
    let (authorize, cookie) = open_start(&link).await;
    fake.seen().challenge = param(&authorize, "code_challenge").unwrap();

    // A state the gateway never made (one character changed).
    let mut forged = state.clone();
    forged.replace_range(0..1, if state.starts_with('A') { "B" } else { "A" });
    let q = query(&[("code", "good-code"), ("state", &forged)]);
    let (status, page) = callback(&gateway.origin, &q, Some(&cookie)).await;
    assert!(
        status == 400 && page.contains("unknown, expired or already used"),
        "{page}"
    );
    let (status, page) = callback(&gateway.origin, "code=good-code", Some(&cookie)).await;
    assert!(status == 400 && page.contains("names no sign-in"), "{page}");

    // The right state without the start page's cookie (another browser): refused.
    let q = query(&[("code", "good-code"), ("state", &state)]);
    let (status, page) = callback(&gateway.origin, &q, None).await;
    assert!(
        status == 400 && page.contains("did not start in this browser"),
        "{page}"
    );
    assert_eq!(gateway.token_of(&alice).await, None);
    // ... which left the state to the browser that started it: its answer (the
    // authorization server's refusal, its words escaped) is still taken.
    let q = query(&[
        ("error", "access_denied"),
        ("error_description", "<script>alert(1)</script>"),
        ("state", &state),
    ]);
    let (status, page) = callback(&gateway.origin, &q, Some(&cookie)).await;
    assert!(status == 400 && page.contains("access_denied"), "{page}");
    assert!(
        !page.contains("<script>") && page.contains("&lt;script&gt;"),
        "{page}"
    );
    let why = gateway
        .store
        .read(&super::flow::failed_key(&digest(&state)))
        .await
        .unwrap();
    assert!(
        why.unwrap().contains("access_denied"),
        "the waiting call learns why"
    );

    // A code the token endpoint refuses.
    let (state, link) = gateway.link(&alice).await;
    let (_, cookie) = open_start(&link).await;
    let q = query(&[("code", "bad-code"), ("state", &state)]);
    let (status, page) = callback(&gateway.origin, &q, Some(&cookie)).await;
    assert!(status == 400 && page.contains("invalid_grant"), "{page}");
    assert!(page.contains("not &lt;this&gt; one"), "{page}");
    assert_eq!(gateway.token_of(&alice).await, None, "nothing kept");
    assert!(
        gateway
            .store
            .scan("gateway:upstream-token:")
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn an_answer_naming_another_issuer_or_none_when_one_is_promised_is_refused() {
    let fake = Fake::start().await;
    fake.seen().iss_supported = true;
    let gateway = Gateway::start(&fake, Arc::new(MemoryStore::new())).await;
    let alice = Caller::new("alice", ["tools:read"]);
    let issuer = fake.base.clone();
    for (answer, iss, why) in [
        (
            "good-code",
            Some("https://as.other.example"),
            "names the issuer",
        ),
        (
            "good-code",
            Some(&format!("{issuer}/")[..]),
            "names the issuer",
        ),
        ("good-code", None, "names no issuer"),
        ("", Some("https://as.other.example"), "names the issuer"),
        ("good-code", Some(issuer.as_str()), "signed in"),
    ] {
        let (state, link) = gateway.link(&alice).await;
        let (authorize, cookie) = open_start(&link).await;
        fake.seen().challenge = param(&authorize, "code_challenge").unwrap();
        let mut pairs = vec![("state", state.as_str())];
        // An empty answer stands for an error answer (the user refused, say).
        pairs.push(match answer {
            "" => ("error", "access_denied"),
            code => ("code", code),
        });
        pairs.extend(iss.map(|iss| ("iss", iss)));
        let (status, page) = callback(&gateway.origin, &query(&pairs), Some(&cookie)).await;
        assert!(page.contains(why), "{iss:?}: {page}");
        if why == "signed in" {
            assert_eq!(status, 200);
            break;
        }
        assert_eq!(status, 400, "{page}");
        assert!(fake.seen().token_forms.is_empty(), "no code redeemed");
        assert_eq!(gateway.token_of(&alice).await, None, "nothing kept");
        let failed = super::flow::failed_key(&digest(&state));
        let failed = gateway.store.read(&failed).await.unwrap();
        assert!(failed.unwrap().contains(why), "the waiting call learns why");
    }
    assert_eq!(gateway.token_of(&alice).await.as_deref(), Some("at-1"));
}

#[tokio::test]
async fn the_gateway_lists_with_client_credentials_only_with_a_configured_secret() {
    crate::tls::install_crypto_provider();
    let fake = Fake::start().await;
    let mcp = format!("{}/mcp", fake.base);
    let public = SignInClient::new("files", &mcp, UpstreamSignIn::new(KEY));
    assert!(public.own_token().await.unwrap().is_none());
    assert!(fake.seen().token_forms.is_empty(), "nothing asked");
    let config = UpstreamSignIn::new(KEY)
        .client("gw", Some("s3cret"))
        .issuer(&fake.base)
        .scopes(["files:read"]);
    let confidential = SignInClient::new("files", &mcp, config);
    let token = confidential.own_token().await.unwrap().unwrap();
    assert_eq!(token.access, "at-1");
    let form = fake.seen().token_forms[0].clone();
    assert_eq!(form["grant_type"], "client_credentials");
    assert_eq!(form["resource"], mcp);
    assert_eq!(form["scope"], "files:read");
    assert!(
        !form.contains_key("client_secret"),
        "the secret goes in the header"
    );
    assert_eq!(form["authorization"], "Basic Z3c6czNjcmV0");
}
