//! Upstreams over HTTPS: Debian's nginx terminates TLS (tests/fixtures/tls: a certificate
//! authority of the tests' own and a certificate for 127.0.0.1 it signed) in front of the
//! notes example over Streamable HTTP, and in front of the notes HTTP API. The gateway trusts
//! the tests' authority only where an upstream's `ca_file` names it.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;
use toolsmith::Server;
use toolsmith::testing::Client;
use toolsmith_gateway::{OpenApi, Upstream};
use toolsmith_tests::nginx::Nginx;

use super::openapi::{notes_api, root};

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/tls").join(name)
}

/// nginx terminating TLS on a free loopback port, passing every request to `to`.
async fn tls_in_front_of(to: &str) -> Nginx {
    Nginx::start(|port| {
        format!(
            "  server {{\n    listen 127.0.0.1:{port} ssl;\n    ssl_certificate {cert};\n    \
             ssl_certificate_key {key};\n    location / {{\n      proxy_pass http://{to};\n      \
             proxy_http_version 1.1;\n      proxy_set_header Connection \"\";\n      \
             proxy_buffering off;\n    }}\n  }}",
            cert = fixture("server.pem").display(),
            key = fixture("server.key").display(),
        )
    })
    .await
}

#[tokio::test]
async fn an_mcp_upstream_over_https_is_reached_when_its_ca_is_trusted() {
    let notes = toolsmith_tests::example_binary("notes");
    let served = toolsmith_tests::http::HttpServer::start(notes.to_str().unwrap(), &[]).await;
    let tls = tls_in_front_of(&served.addr).await;
    let url = format!("https://127.0.0.1:{}{}", tls.port, served.path);

    let mounted = Upstream::http("secure", &url)
        .ca_file(fixture("ca.pem"))
        .connect()
        .await
        .unwrap();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
    let found = client
        .call("secure_search_notes", json!({"query": "standup"}))
        .await
        .unwrap();
    assert!(found.text().contains("Standup notes"), "{}", found.text());

    // Without it, the certificate is not trusted: the connect fails, naming the upstream and
    // why.
    let began = std::time::Instant::now();
    let err = Upstream::http("secure", &url)
        .connect_timeout(Duration::from_secs(10))
        .connect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("upstream 'secure'") && err.contains("UnknownIssuer"),
        "{err}"
    );
    eprintln!("{err} {:?}", began.elapsed());

    // A CA file that is not one is refused before anything is sent.
    let err = Upstream::http("secure", &url)
        .ca_file(fixture("server.key"))
        .connect()
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds no certificate"), "{err}");
}

#[tokio::test]
async fn an_http_api_over_https_is_read_and_called() {
    let api = notes_api().await;
    let plain = api.base.trim_start_matches("http://").to_owned();
    let tls = tls_in_front_of(&plain).await;
    let document = format!("https://127.0.0.1:{}/openapi.json", tls.port);
    let key = std::env::temp_dir().join(format!("toolsmith-tls-key-{}", std::process::id()));
    std::fs::write(&key, "secret-key\n").unwrap();

    // The document over HTTPS, and the calls to the base URL it implies (its origin).
    let mounted = Upstream::openapi(
        "notes",
        OpenApi::new(&document).credential("APIKeyHeader", format!("${{file:{}}}", key.display())),
    )
    .ca_file(fixture("ca.pem"))
    .connect()
    .await
    .unwrap();
    std::fs::remove_file(&key).unwrap();
    let client = Client::connect(Server::with_registry(mounted.registry().unwrap()))
        .await
        .unwrap();
    let created = client
        .call(
            "notes_create_note",
            json!({"body": {"title": "Over TLS", "body": "sealed"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        created.structured().unwrap()["title"],
        "Over TLS",
        "{created:?}"
    );

    // Untrusted: the document cannot be read, and the error says why.
    let err = Upstream::openapi("notes", OpenApi::new(&document))
        .connect()
        .await
        .unwrap_err()
        .to_string();
    assert!(err.to_lowercase().contains("certificate"), "{err}");
}
