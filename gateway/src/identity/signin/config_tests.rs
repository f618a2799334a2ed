//! `[servers.NAME.sign_in]`: read into [`UpstreamSignIn`](super::UpstreamSignIn), and checked;
//! its `issuer` held against the authorization server the upstream names.

use std::sync::Arc;

use toolsmith::context::Caller;
use toolsmith::task::{MemoryStore, TaskStore};

use super::fake::Fake;
use super::{SignInClient, UpstreamSignIn};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

#[test]
fn the_toml_sign_in_block_is_read_and_checked() {
    let toml = r#"
        [servers.files]
        url = "https://files.example/mcp"
        [servers.files.sign_in]
        token_key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
        scopes = ["files:read"]
        client_id = "gw"
        client_secret = "${FILES_SECRET}"
        issuer = "https://login.files.example"
        callback_url = "https://gw.example/upstream/callback"
        wait_secs = 60
    "#;
    let upstreams = crate::Config::from_toml(toml).unwrap().upstreams();
    let client = upstreams[0]
        .sign_in_client()
        .expect("the upstream signs its users in");
    assert!(upstreams[0].is_per_caller(), "a session per caller");
    client.ready().unwrap();
    assert_eq!(client.config.scopes, ["files:read"]);
    assert_eq!(client.config.client_id.as_deref(), Some("gw"));
    assert_eq!(
        client.config.issuer.as_deref(),
        Some("https://login.files.example")
    );
    assert_eq!(client.config.wait.as_secs(), 60);
    assert_eq!(client.url, "https://files.example/mcp");
    assert_eq!(
        client.callback().unwrap(),
        "https://gw.example/upstream/callback"
    );
    let shown = format!("{client:?} {:?}", client.config);
    assert!(
        !shown.contains("FILES_SECRET") && !shown.contains("AAEC"),
        "{shown}"
    );

    for (entry, expected) in [
        (
            "command = \"x\"\n[servers.f.sign_in]\ntoken_key = \"k\"\n",
            "is for a remote upstream",
        ),
        (
            "url = \"https://a/mcp\"\n[servers.f.sign_in]\ntoken_key = \"k\"\nwait_secs = 0\n",
            "`sign_in.wait_secs` is 0",
        ),
        (
            "url = \"https://a/mcp\"\n[servers.f.sign_in]\ntoken_key = \"k\"\nclient_secret = \"s\"\n",
            "without `client_id`",
        ),
        (
            "url = \"https://a/mcp\"\n[servers.f.sign_in]\ntoken_key = \"k\"\nclient_id = \"gw\"\nclient_secret = \"s\"\n",
            "`sign_in.client_secret` without `issuer`: add the issuer URL",
        ),
        (
            "url = \"https://a/mcp\"\n[servers.f.sign_in]\ntoken_key = \"k\"\nscope = \"x\"\n",
            "unknown field `scope`",
        ),
        (
            "url = \"https://a/mcp\"\n[servers.f.sign_in]\nscopes = [\"x\"]\n",
            "missing field `token_key`",
        ),
        (
            "url = \"https://a/mcp\"\n[servers.f.sign_in]\ntoken_key = \"k\"\n[servers.f.mint]\naudience = \"https://a/mcp\"\n",
            "has `sign_in` and `mint`",
        ),
    ] {
        let err = crate::Config::from_toml(&format!("[servers.f]\n{entry}")).unwrap_err();
        assert!(err.contains(expected), "{expected}: {err}");
    }
    // A key that is not 32 bytes, a callback that is not the gateway's: at connect.
    let bad = "[servers.f]\nurl = \"https://a/mcp\"\n[servers.f.sign_in]\ntoken_key = \"c2hvcnQ=\"\ncallback_url = \"https://gw.example/elsewhere\"\n";
    let upstreams = crate::Config::from_toml(bad).unwrap().upstreams();
    let client = upstreams[0]
        .sign_in_client()
        .expect("the upstream signs its users in");
    assert!(upstreams[0].is_per_caller(), "a session per caller");
    let err = client.ready().unwrap_err().to_string();
    assert!(err.contains("`token_key` is 5 bytes"), "{err}");
    let good_key = "[servers.f]\nurl = \"https://a/mcp\"\n[servers.f.sign_in]\ntoken_key = \"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\"\ncallback_url = \"https://gw.example/elsewhere\"\n";
    let upstreams = crate::Config::from_toml(good_key).unwrap().upstreams();
    let client = upstreams[0]
        .sign_in_client()
        .expect("the upstream signs its users in");
    assert!(upstreams[0].is_per_caller(), "a session per caller");
    let err = client.ready().unwrap_err().to_string();
    assert!(err.contains("is not the gateway's callback"), "{err}");
    // The upstream's own CA file is its sign-in's too: one that cannot be read is said.
    let ca = "[servers.f]\nurl = \"https://a/mcp\"\nca_file = \"/no/such/ca.pem\"\n[servers.f.sign_in]\ntoken_key = \"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\"\n";
    let upstreams = crate::Config::from_toml(ca).unwrap().upstreams();
    let client = upstreams[0].sign_in_client().unwrap();
    let err = client.ready().unwrap_err().to_string();
    assert!(err.contains("/no/such/ca.pem cannot be read"), "{err}");
}

#[test]
fn a_client_secret_without_an_issuer_is_refused_at_connect() {
    let secret = UpstreamSignIn::new(KEY).client("gw", Some("s3cret"));
    let client = SignInClient::new("files", "https://files.example/mcp", secret.clone());
    let err = client.ready().unwrap_err().to_string();
    assert!(err.contains("`client_secret` needs `issuer`: add"), "{err}");
    let plain = secret.clone().issuer("http://login.files.example");
    let client = SignInClient::new("files", "https://files.example/mcp", plain);
    let err = client.ready().unwrap_err().to_string();
    assert!(err.contains("`issuer` http://login.files.example"), "{err}");
    let named = secret.issuer("https://login.files.example");
    SignInClient::new("files", "https://files.example/mcp", named)
        .ready()
        .unwrap();
    // A client without a secret (public) may go without.
    let public = UpstreamSignIn::new(KEY).client("gw", None::<String>);
    SignInClient::new("files", "https://files.example/mcp", public)
        .ready()
        .unwrap();
}

#[tokio::test]
async fn an_authorization_server_other_than_the_configured_issuer_is_refused() {
    crate::tls::install_crypto_provider();
    let fake = Fake::start().await;
    let mcp = format!("{}/mcp", fake.base);
    let expected = "https://login.files.example";
    let config = UpstreamSignIn::new(KEY)
        .client("gw", Some("s3cret"))
        .issuer(expected);
    let client = SignInClient::new("files", &mcp, config.clone());
    client.ready().unwrap();
    client.serve_at("http://127.0.0.1:9");
    // The gateway's own token (client credentials) and a user's sign-in: refused, naming both.
    let Err(err) = client.own_token().await else {
        panic!("a token from another authorization server");
    };
    assert!(
        err.contains(&fake.base) && err.contains(expected) && err.contains("`issuer`"),
        "{err}"
    );
    let alice = Caller::new("alice", ["tools:read"]);
    let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
    let key = client.token_key(&alice);
    let err = client.pending(&alice, &key, &store).await.unwrap_err();
    let err = err.to_string();
    assert!(err.contains(&fake.base) && err.contains(expected), "{err}");
    assert!(
        fake.seen().token_forms.is_empty(),
        "the secret went nowhere"
    );
    assert_eq!(fake.seen().registrations, 0);
    assert!(store.scan("gateway:").await.unwrap().is_empty());

    // The server the upstream names, configured: the gateway lists with its token.
    let config = config.issuer(&fake.base);
    let client = SignInClient::new("files", &mcp, config);
    client.ready().unwrap();
    let token = client.own_token().await.unwrap().unwrap();
    assert_eq!(token.access_token(), "at-1");
}
