//! `import_url` with a forward proxy in the environment: the proxy is never used (it would
//! resolve names out of the address guard's sight), unless given with `--fetch-proxy`, and
//! then a URL naming a non-public address is still refused before it is asked.
//!
//! The check sets the proxy variables for the whole process: it runs in a process of its
//! own, this test binary started again for that one test.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use toolsmith::testing::Client;
use toolsmith_examples::fetch::Fetcher;
use toolsmith_examples::store::Notes;

/// A forward proxy on loopback that answers every request with a page, counting them.
async fn proxy() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf).await;
                let body = "<html><head><title>Through the proxy</title></head></html>";
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(reply.as_bytes()).await;
            });
        }
    });
    (addr, asked)
}

async fn client(fetcher: Fetcher) -> Client {
    let server = toolsmith::Server::new()
        .state(Notes::seeded())
        .state(fetcher);
    Client::connect(server).await.unwrap()
}

/// Set in the process that runs the check.
const ALONE: &str = "TOOLSMITH_TEST_PROXY_ENV_ALONE";

#[test]
fn a_proxy_in_the_environment_is_not_used() {
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "proxy_env::in_a_process_of_its_own", "--ignored"])
        .args(["--test-threads", "1", "--quiet"])
        .env(ALONE, "1")
        .status()
        .unwrap();
    assert!(
        status.success(),
        "the check failed in its own process: {status}"
    );
}

#[tokio::test]
#[ignore = "run by a_proxy_in_the_environment_is_not_used, in a process of its own"]
async fn in_a_process_of_its_own() {
    assert!(
        std::env::var_os(ALONE).is_some(),
        "run by a_proxy_in_the_environment_is_not_used only"
    );
    let (proxy, asked) = proxy().await;
    let url = format!("http://{proxy}");
    for name in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        // SAFETY: this process runs this test only, and sets them before any other thread
        // reads the environment (the runtime is a current-thread one).
        unsafe { std::env::set_var(name, &url) };
    }
    // SAFETY: as above.
    unsafe { std::env::remove_var("NO_PROXY") };
    unsafe { std::env::remove_var("no_proxy") };

    let plain = client(Fetcher::new(Vec::new(), Duration::from_secs(2))).await;
    // A loopback-only page, by name: the guard resolves it and refuses.
    let refused = plain
        .call("import_url", json!({"url": "http://localhost:9/internal"}))
        .await;
    let text = match refused {
        Ok(outcome) => {
            assert!(
                outcome.is_error(),
                "fetched through the proxy: {}",
                outcome.text()
            );
            outcome.text()
        }
        Err(err) => err.message().to_owned(),
    };
    assert!(!text.contains("Through the proxy"), "{text}");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "the environment's proxy was asked"
    );

    // Given explicitly, the proxy is used; an IP literal that is not public is still
    // refused before it is asked.
    let proxied =
        client(Fetcher::with_proxy(Vec::new(), Duration::from_secs(2), &url).unwrap()).await;
    let refused = proxied
        .call("import_url", json!({"url": "http://127.0.0.1:9/internal"}))
        .await;
    assert!(refused.map(|o| o.is_error()).unwrap_or(true));
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    let through = proxied
        .call("import_url", json!({"url": "http://example.invalid/page"}))
        .await
        .unwrap();
    assert!(!through.is_error(), "{}", through.text());
    assert_eq!(through.structured().unwrap()["title"], "Through the proxy");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
}
