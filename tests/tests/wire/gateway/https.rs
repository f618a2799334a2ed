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

use super::openapi::{notes_api, root};

/// nginx in a folder of its own (one process, in the foreground, stopped when dropped),
/// listening with TLS on a free loopback port and passing every request to `to`.
struct Tls {
    _nginx: tokio::process::Child,
    _dir: Folder,
    port: u16,
}

/// A temporary folder, removed when dropped.
struct Folder(PathBuf);

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/tls").join(name)
}

fn nginx() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("nginx is not installed: `apt-get install nginx` (./scripts/test installs it)")
}

async fn tls_in_front_of(to: &str) -> Tls {
    let port = toolsmith_tests::free_port();
    let dir = std::env::temp_dir().join(format!("toolsmith-tls-{}-{port}", std::process::id()));
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    let temp = dir.join("tmp").display().to_string();
    let config = format!(
        "daemon off;\nmaster_process off;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log;\n\
         events {{}}\nhttp {{\n  access_log off;\n  client_body_temp_path {temp};\n  \
         proxy_temp_path {temp};\n  fastcgi_temp_path {temp};\n  uwsgi_temp_path {temp};\n  \
         scgi_temp_path {temp};\n  server {{\n    listen 127.0.0.1:{port} ssl;\n    \
         ssl_certificate {cert};\n    ssl_certificate_key {key};\n    location / {{\n      \
         proxy_pass http://{to};\n      proxy_http_version 1.1;\n      \
         proxy_set_header Connection \"\";\n      proxy_buffering off;\n    }}\n  }}\n}}\n",
        dir = dir.display(),
        cert = fixture("server.pem").display(),
        key = fixture("server.key").display(),
    );
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, config).unwrap();
    let error_log = dir.join("error.log");
    let nginx = tokio::process::Command::new(nginx())
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(&conf)
        .arg("-e")
        .arg(&error_log)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Tls {
                _nginx: nginx,
                _dir: Folder(dir),
                port,
            };
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let log = std::fs::read_to_string(&error_log).unwrap_or_default();
    panic!("nginx did not listen on 127.0.0.1:{port} within 20 s:\n{log}");
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
