//! Slow and idle clients are cut off, and connections are capped: a head sent half-way, a
//! body dripped byte by byte, a keep-alive connection gone silent, each past its limit
//! (`--http-header-timeout`, `--http-body-timeout`, `--http-idle-timeout`); and past
//! `--max-connections`, a new connection waits while the open ones are kept.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolsmith_tests::http::{HttpServer, Response};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");

/// Reads `stream` until the server closes it, for at most `within`; what was read, or
/// `None` if it was still open then.
async fn closed_within(
    stream: &mut (impl tokio::io::AsyncRead + Unpin),
    within: Duration,
) -> Option<Vec<u8>> {
    let mut read = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(read),
            Ok(Ok(n)) => read.extend_from_slice(&buf[..n]),
        }
    }
}

/// A plain `tools/list` request, keeping the connection open.
fn list_request(addr: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Reads one response with a `Content-Length` body off a kept-alive connection.
async fn one_response(stream: &mut TcpStream) -> Response {
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let n = stream.read(&mut buf).await.expect("readable");
            assert!(n > 0, "closed before a whole response");
            raw.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&raw);
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .expect("a Content-Length");
                if body.len() >= length {
                    return;
                }
            }
        }
    })
    .await
    .expect("a response within 10 s");
    Response::parse(&raw).expect("a status line")
}

/// A kept-alive connection to `server` that one request was answered on.
async fn answered_once(server: &HttpServer) -> TcpStream {
    let mut stream = TcpStream::connect(&server.addr).await.unwrap();
    stream
        .write_all(list_request(&server.addr).as_bytes())
        .await
        .unwrap();
    assert_eq!(one_response(&mut stream).await.status, 200);
    stream
}

#[tokio::test]
async fn a_head_sent_half_way_is_cut_off() {
    let server = HttpServer::start(FIXTURE, &["--http-header-timeout", "1"]).await;
    let start = Instant::now();
    let mut stream = TcpStream::connect(&server.addr).await.unwrap();
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", server.addr);
    stream.write_all(head.as_bytes()).await.unwrap();
    let read = closed_within(&mut stream, Duration::from_secs(5)).await;
    assert!(read.is_some(), "a half-sent head kept its connection open");
    assert!(
        start.elapsed() >= Duration::from_millis(900),
        "{:?}",
        start.elapsed()
    );
    // A connection that sends nothing at all is closed too.
    let mut silent = TcpStream::connect(&server.addr).await.unwrap();
    assert!(
        closed_within(&mut silent, Duration::from_secs(5))
            .await
            .is_some()
    );
}

#[tokio::test]
async fn a_dripped_body_gets_408() {
    let server = HttpServer::start(FIXTURE, &["--http-body-timeout", "1"]).await;
    let stream = TcpStream::connect(&server.addr).await.unwrap();
    let (mut reading, mut writing) = stream.into_split();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{",
        server.addr
    );
    writing.write_all(head.as_bytes()).await.unwrap();
    // One byte every 200 ms would take 20 s; the server answers 408 after 1 s and closes.
    let drip = tokio::spawn(async move {
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if writing.write_all(b" ").await.is_err() {
                break;
            }
        }
    });
    let read = closed_within(&mut reading, Duration::from_secs(6))
        .await
        .expect("the connection is closed");
    drip.abort();
    let response = Response::parse(&read).expect("an answer");
    assert_eq!(response.status, 408, "{response:?}");
    assert_eq!(
        response.messages()[0]["error"]["code"],
        -32600,
        "{response:?}"
    );
}

#[tokio::test]
async fn a_silent_keep_alive_connection_is_closed_after_the_idle_timeout_not_the_header_one() {
    let server = HttpServer::start(
        FIXTURE,
        &["--http-header-timeout", "1", "--http-idle-timeout", "3"],
    )
    .await;
    let mut stream = answered_once(&server).await;
    // Silent longer than the header timeout: still open, and it serves the next request.
    tokio::time::sleep(Duration::from_millis(1800)).await;
    stream
        .write_all(list_request(&server.addr).as_bytes())
        .await
        .unwrap();
    assert_eq!(one_response(&mut stream).await.status, 200);
    // Silent past the idle timeout: closed.
    let start = Instant::now();
    let read = closed_within(&mut stream, Duration::from_secs(8)).await;
    assert_eq!(read.as_deref(), Some(&b""[..]), "closed without a word");
    assert!(
        start.elapsed() >= Duration::from_millis(2500),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn past_the_connection_cap_a_new_connection_waits_and_open_ones_stay() {
    let server = HttpServer::start(
        FIXTURE,
        &["--max-connections", "2", "--http-header-timeout", "30"],
    )
    .await;
    let mut first = TcpStream::connect(&server.addr).await.unwrap();
    let second = TcpStream::connect(&server.addr).await.unwrap();
    // The third is connected by the system but not served while two are open.
    let mut third = TcpStream::connect(&server.addr).await.unwrap();
    third
        .write_all(list_request(&server.addr).as_bytes())
        .await
        .unwrap();
    let mut buf = [0u8; 64];
    let waited = tokio::time::timeout(Duration::from_millis(800), third.read(&mut buf)).await;
    assert!(
        waited.is_err(),
        "the third connection was served past the cap"
    );
    // The open ones were not closed for it: the first still serves.
    first
        .write_all(list_request(&server.addr).as_bytes())
        .await
        .unwrap();
    assert_eq!(one_response(&mut first).await.status, 200);
    // Once one closes, the waiting connection is served.
    drop(second);
    assert_eq!(one_response(&mut third).await.status, 200);
}

/// Each connection keeps one timer, moved only when a deadline comes nearer: after an
/// answer, a later request's head is still due within the header limit (nearer than the
/// idle one), and with an idle limit shorter than the header one, a silent connection goes
/// after the idle limit.
#[tokio::test]
async fn a_deadline_that_comes_nearer_after_an_answer_is_kept() {
    let server = HttpServer::start(
        FIXTURE,
        &["--http-header-timeout", "1", "--http-idle-timeout", "30"],
    )
    .await;
    let mut stream = answered_once(&server).await;
    // Past the first head's deadline: the timer has fired and now waits for the idle one.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let start = Instant::now();
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", server.addr);
    stream.write_all(head.as_bytes()).await.unwrap();
    let read = closed_within(&mut stream, Duration::from_secs(6)).await;
    assert!(
        read.is_some(),
        "a half-sent second head kept its connection open"
    );
    assert!(
        start.elapsed() >= Duration::from_millis(900),
        "{:?}",
        start.elapsed()
    );

    let server = HttpServer::start(
        FIXTURE,
        &["--http-header-timeout", "30", "--http-idle-timeout", "1"],
    )
    .await;
    let mut stream = answered_once(&server).await;
    let start = Instant::now();
    let read = closed_within(&mut stream, Duration::from_secs(6)).await;
    assert_eq!(
        read.as_deref(),
        Some(&b""[..]),
        "idle past its limit, closed"
    );
    assert!(
        start.elapsed() >= Duration::from_millis(900),
        "{:?}",
        start.elapsed()
    );
}
