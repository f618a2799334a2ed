//! The guard against a loopback web server started here.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::{FetchError, Outbound};

/// A loopback web server: its address.
async fn web() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream));
        }
    });
    addr
}

async fn serve(mut stream: TcpStream) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
        if stream.read(&mut byte).await.unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let reply = |status: &str, extra: &str, body: &str| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
            body.len()
        )
    };
    let answer = match path.as_str() {
        "/doc" => reply(
            "200 OK",
            "Content-Type: application/json\r\nCache-Control: max-age=60\r\n",
            "{\"client_id\":\"x\"}",
        ),
        "/big" => {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                .await;
            for _ in 0..10 {
                if stream.write_all(b"400\r\n").await.is_err()
                    || stream.write_all(&[b'x'; 1024]).await.is_err()
                    || stream.write_all(b"\r\n").await.is_err()
                {
                    return;
                }
            }
            let _ = stream.write_all(b"0\r\n\r\n").await;
            return;
        }
        "/stall" => {
            tokio::time::sleep(Duration::from_secs(30)).await;
            return;
        }
        "/to-private" => reply("302 Found", "Location: http://10.255.255.1/\r\n", ""),
        "/nowhere" => reply("302 Found", "", ""),
        hop if hop.starts_with("/hop/") => {
            let n: u32 = hop[5..].parse().unwrap_or(0);
            let next = match n {
                0 => "/doc".to_owned(),
                n => format!("/hop/{}", n - 1),
            };
            reply("302 Found", &format!("Location: {next}\r\n"), "")
        }
        _ => reply("404 Not Found", "", "no"),
    };
    let _ = stream.write_all(answer.as_bytes()).await;
}

fn loopback() -> super::OutboundBuilder {
    Outbound::builder()
        .allow_host("127.0.0.1")
        .timeout(Duration::from_secs(5))
}

#[tokio::test]
async fn a_document_comes_with_its_headers_and_its_progress() {
    let web = web().await;
    let outbound = loopback().build().unwrap();
    let mut seen = Vec::new();
    let url = format!("http://{web}/hop/2");
    let fetched = outbound
        .get(&url, |so_far, total| seen.push((so_far, total)))
        .await
        .unwrap();
    assert_eq!(
        fetched.url,
        format!("http://{web}/doc"),
        "the last hop's URL"
    );
    assert_eq!(fetched.status, 200);
    assert_eq!(fetched.content_type.as_deref(), Some("application/json"));
    assert_eq!(fetched.cache_control.as_deref(), Some("max-age=60"));
    assert_eq!(fetched.body, b"{\"client_id\":\"x\"}");
    assert_eq!(seen.last(), Some(&(17, Some(17))));
}

#[tokio::test]
async fn each_guard_says_what_was_wrong() {
    let web = web().await;
    let outbound = loopback()
        .max_bytes(4096)
        .max_redirects(2)
        .allow_hint("--signin-allow-host")
        .build()
        .unwrap();
    let get = |path: &str| {
        let url = format!("http://{web}{path}");
        let outbound = outbound.clone();
        async move { outbound.get(&url, |_, _| {}).await.unwrap_err() }
    };
    assert_eq!(get("/big").await, FetchError::TooLarge { max: 4096 });
    assert_eq!(get("/hop/3").await, FetchError::TooManyRedirects { max: 2 });
    assert!(
        outbound
            .get(&format!("http://{web}/hop/1"), |_, _| {})
            .await
            .is_ok()
    );
    let private = get("/to-private").await;
    assert_eq!(
        private.to_string(),
        "10.255.255.1 is on this machine or a private network: refused (allow it with --signin-allow-host 10.255.255.1)"
    );
    let nowhere = get("/nowhere").await;
    assert!(
        matches!(nowhere, FetchError::RedirectNowhere { .. }),
        "{nowhere}"
    );
    let missing = get("/missing").await;
    assert!(
        matches!(missing, FetchError::Status { status: 404, .. }),
        "{missing}"
    );
    let bad = outbound.get("not a url", |_, _| {}).await.unwrap_err();
    assert!(matches!(bad, FetchError::BadUrl { .. }), "{bad}");
}

#[tokio::test]
async fn a_name_on_loopback_is_refused_when_resolved_unless_allowed() {
    let web = web().await;
    let port = web.rsplit(':').next().unwrap();
    let url = format!("http://localhost:{port}/doc");
    let refused = Outbound::builder().build().unwrap();
    let err = refused.get(&url, |_, _| {}).await.unwrap_err();
    assert_eq!(
        err,
        FetchError::NotPublic {
            host: "localhost".into(),
            hint: None
        }
    );
    let allowed = Outbound::builder().allow_host("localhost").build().unwrap();
    let fetched = allowed.get(&url, |_, _| {}).await;
    // localhost may resolve to ::1 first, where nothing listens: allowed, it is tried.
    assert!(
        !matches!(fetched, Err(FetchError::NotPublic { .. })),
        "{fetched:?}"
    );
}

#[tokio::test]
async fn the_timeout_bounds_the_whole_download() {
    let web = web().await;
    let outbound = loopback()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let err = outbound
        .get(&format!("http://{web}/stall"), |_, _| {})
        .await
        .unwrap_err();
    assert!(err.to_string().contains("took too long"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3));
}
