//! Client ID Metadata Documents: a `client_id` that is a URL is the client's own document,
//! fetched by the server. Loopback and private addresses are never fetched (SSRF) unless
//! allowed (`--signin-allow-host 127.0.0.1`, these tests' documents over plain http); a
//! document too big, too slow or naming another client_id is refused.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{Browser, Pkce, REDIRECT, Signin, refused_page};

/// What the document server does with a request.
enum Answer {
    /// 200 with this JSON.
    Json(String),
    /// Reads the request and never answers.
    Silent,
}

/// A client's metadata document on 127.0.0.1, served by the test; it counts its requests.
struct DocServer {
    /// `http://127.0.0.1:PORT/client.json`.
    url: String,
    port: u16,
    hits: Arc<AtomicUsize>,
}

impl DocServer {
    /// Serves what `answer` makes of the document's own URL.
    async fn start(answer: impl FnOnce(&str) -> Answer) -> DocServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}/client.json");
        let answer = Arc::new(answer(&url));
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let answer = answer.clone();
                tokio::spawn(async move {
                    let mut buffer = [0u8; 4096];
                    let _ = stream.read(&mut buffer).await;
                    match &*answer {
                        Answer::Json(body) => {
                            let head = format!(
                                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                                body.len()
                            );
                            let _ = stream.write_all(head.as_bytes()).await;
                            let _ = stream.write_all(body.as_bytes()).await;
                        }
                        Answer::Silent => tokio::time::sleep(Duration::from_secs(120)).await,
                    }
                });
            }
        });
        DocServer { url, port, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// A good document of client `url`, `extra` fields added.
fn document(url: &str, extra: serde_json::Value) -> Answer {
    let mut doc = json!({"client_id": url, "client_name": "Doc client", "redirect_uris": [REDIRECT],
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]});
    doc.as_object_mut()
        .unwrap()
        .extend(extra.as_object().cloned().unwrap_or_default());
    Answer::Json(doc.to_string())
}

/// The answer to an authorization request of client `client_id`.
async fn authorize(signin: &Signin, client_id: &str) -> toolsmith_tests::http::Response {
    let path = signin.authorize_path(client_id, &Pkce::new(), &[]);
    Browser::new().get(signin.addr(), &path).await
}

#[tokio::test]
async fn a_loopback_or_private_client_id_is_refused_without_a_fetch() {
    let signin = Signin::start(&[]).await;
    let doc = DocServer::start(|url| document(url, json!({}))).await;
    let port = doc.port;
    let v6 = tokio::net::TcpListener::bind("[::1]:0").await.ok();
    let v6_port = v6.as_ref().map_or(port, |l| l.local_addr().unwrap().port());
    let cases = [
        format!("https://127.0.0.1:{port}/client.json"),
        format!("http://127.0.0.1:{port}/client.json"),
        format!("https://localhost:{port}/client.json"),
        format!("https://[::1]:{v6_port}/client.json"),
        "https://10.0.0.1/client.json".to_owned(),
        "https://169.254.169.254/latest/meta-data/client.json".to_owned(),
        "https://192.168.1.1/client.json".to_owned(),
    ];
    for client_id in &cases {
        let response = authorize(&signin, client_id).await;
        refused_page(&response, client_id);
    }
    assert_eq!(doc.hits(), 0, "a loopback document was fetched");
    if let Some(listener) = v6 {
        let accepted = tokio::time::timeout(Duration::from_millis(50), listener.accept()).await;
        assert!(accepted.is_err(), "the [::1] document was fetched");
    }
}

#[tokio::test]
async fn an_allowed_hosts_document_leads_to_the_provider_and_names_the_client() {
    let signin = Signin::start(&["--signin-allow-host", "127.0.0.1"]).await;
    let doc = DocServer::start(|url| document(url, json!({}))).await;
    let browser = Browser::new();
    let path = signin.authorize_path(&doc.url, &Pkce::new(), &[]);
    let callback = signin.sign_in(&browser, &path).await;
    assert!(doc.hits() >= 1, "the document was fetched");
    let page = signin.consent_page(&browser, &callback).await;
    assert!(
        page.html.contains("Doc client"),
        "the page names the client: {}",
        page.html
    );
    assert!(
        page.html.contains("127.0.0.1"),
        "the page names its redirect host: {}",
        page.html
    );
}

#[tokio::test]
async fn an_oversized_document_is_refused() {
    let signin = Signin::start(&["--signin-allow-host", "127.0.0.1"]).await;
    let padding = "x".repeat(64 * 1024);
    let doc = DocServer::start(|url| document(url, json!({"client_uri_note": padding}))).await;
    let response = authorize(&signin, &doc.url).await;
    refused_page(&response, "a 64 KiB document");
    let page = response.body.to_ascii_lowercase();
    assert!(
        ["bytes", "kib", "large", "size"]
            .iter()
            .any(|w| page.contains(w)),
        "the page says the document is too big: {}",
        response.body
    );
    assert!(doc.hits() >= 1, "the document was fetched");
}

#[tokio::test]
async fn a_document_naming_another_client_id_is_refused() {
    let signin = Signin::start(&["--signin-allow-host", "127.0.0.1"]).await;
    let doc = DocServer::start(|url| {
        let other = url.replace("client.json", "other.json");
        document(url, json!({"client_id": other}))
    })
    .await;
    let response = authorize(&signin, &doc.url).await;
    refused_page(&response, "another client_id");
    assert!(
        response.body.contains("client_id"),
        "the page says why: {}",
        response.body
    );
    assert!(doc.hits() >= 1, "the document was fetched");
}

#[tokio::test]
async fn a_document_that_never_comes_is_refused_after_the_timeout() {
    let signin = Signin::start(&["--signin-allow-host", "127.0.0.1"]).await;
    let doc = DocServer::start(|_| Answer::Silent).await;
    let response = authorize(&signin, &doc.url).await;
    refused_page(&response, "a silent document server");
    let page = response.body.to_ascii_lowercase();
    assert!(
        page.contains("time"),
        "the page says the fetch timed out: {}",
        response.body
    );
    assert!(doc.hits() >= 1, "the document was asked for");
    // The server still answers.
    assert_eq!(signin.get("/oauth/jwks").await.status, 200);
}
