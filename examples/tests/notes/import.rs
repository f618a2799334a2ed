//! `import_url` against a loopback web server started here: a page becomes a note; a 5 MiB
//! body stops at the cap; redirects are followed and each one checked again; a slow drip
//! times out; a call cancelled by its client stops the download; a private address is
//! refused without `--fetch-allow`, and so is any scheme but http and https.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolsmith::testing::{CallOptions, Client};
use toolsmith_examples::fetch::Fetcher;
use toolsmith_examples::store::Notes;

/// A loopback web server: its address, and how many drips ended because the client left.
struct Web {
    addr: String,
    left: Arc<AtomicUsize>,
}

async fn web() -> Web {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let left = Arc::new(AtomicUsize::new(0));
    let counted = left.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream, counted.clone()));
        }
    });
    Web { addr, left }
}

async fn serve(mut stream: TcpStream, left: Arc<AtomicUsize>) {
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
        "/page" => reply(
            "200 OK",
            "Content-Type: text/html\r\n",
            "<html><head><title>Loopback page</title></head><body><p>Hello from the test.</p></body></html>",
        ),
        "/big" => {
            // 5 MiB, chunked: no Content-Length to refuse it up front.
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                .await;
            let chunk = vec![b'x'; 64 * 1024];
            for _ in 0..80 {
                let size = format!("{:x}\r\n", chunk.len());
                if stream.write_all(size.as_bytes()).await.is_err()
                    || stream.write_all(&chunk).await.is_err()
                    || stream.write_all(b"\r\n").await.is_err()
                {
                    return;
                }
            }
            let _ = stream.write_all(b"0\r\n\r\n").await;
            return;
        }
        "/drip" => {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
                .await;
            for _ in 0..100 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if stream.write_all(b"x").await.is_err() {
                    left.fetch_add(1, Ordering::SeqCst);
                    return;
                }
            }
            return;
        }
        "/to-private" => reply("302 Found", "Location: http://10.255.255.1/\r\n", ""),
        // A redirect that answers after 1.2 s, five hops deep.
        hop if hop.starts_with("/slow/") => {
            let n: u32 = hop[6..].parse().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(1200)).await;
            let next = match n {
                0 => "/page".to_owned(),
                n => format!("/slow/{}", n - 1),
            };
            reply("302 Found", &format!("Location: {next}\r\n"), "")
        }
        hop if hop.starts_with("/hop/") => {
            let n: u32 = hop[5..].parse().unwrap_or(0);
            let next = if n == 0 {
                "/page".to_owned()
            } else {
                format!("/hop/{}", n - 1)
            };
            reply("302 Found", &format!("Location: {next}\r\n"), "")
        }
        _ => reply("404 Not Found", "", "no"),
    };
    let _ = stream.write_all(answer.as_bytes()).await;
}

async fn client(allow: &[&str], timeout: Duration) -> Client {
    let fetcher = Fetcher::new(allow.iter().map(|a| (*a).to_owned()).collect(), timeout);
    Client::connect(
        toolsmith::Server::new()
            .state(Notes::seeded())
            .state(fetcher),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_page_becomes_a_note_and_the_safeguards_hold() {
    let web = web().await;
    let client = client(&["127.0.0.1"], Duration::from_secs(2)).await;
    let url = |path: &str| json!({"url": format!("http://{}{path}", web.addr)});

    let page = client.call("import_url", url("/page")).await.unwrap();
    assert!(!page.is_error(), "{}", page.text());
    let note = page.structured().unwrap();
    assert_eq!(note["title"], "Loopback page");
    assert_eq!(note["tags"], json!(["imported"]));
    assert!(
        note["body"]
            .as_str()
            .unwrap()
            .contains("Hello from the test.")
    );
    let got = client.get_note_title(note["id"].as_u64().unwrap()).await;
    assert_eq!(got, "Loopback page");
    // Progress comes per chunk, when asked for.
    let options = CallOptions::default().progress_token("import");
    let watched = client
        .call_with("import_url", url("/page"), options)
        .await
        .unwrap();
    let reported = watched.progress();
    assert!(!reported.is_empty(), "no progress");
    assert!(
        reported
            .iter()
            .all(|p| p.message.as_deref().is_some_and(|m| m.ends_with("bytes")))
    );

    let refusal = |refused: Result<_, toolsmith::testing::CallError>| match refused {
        Ok(outcome) => panic!("not refused: {outcome:?}"),
        Err(err) => err.message(),
    };
    let big = refusal(client.call("import_url", url("/big")).await);
    assert!(big.contains("over 1048576 bytes"), "{big}");
    let hops = client.call("import_url", url("/hop/3")).await.unwrap();
    assert_eq!(hops.structured().unwrap()["title"], "Loopback page");
    let too_many = refusal(client.call("import_url", url("/hop/9")).await);
    assert!(too_many.contains("Too many redirects"), "{too_many}");
    let redirected = refusal(client.call("import_url", url("/to-private")).await);
    assert!(redirected.contains("10.255.255.1"), "{redirected}");
    assert!(redirected.contains("--fetch-allow"), "{redirected}");
    let slow = refusal(client.call("import_url", url("/drip")).await);
    assert!(slow.contains("took too long"), "{slow}");
    let scheme = refusal(
        client
            .call("import_url", json!({"url": "file:///etc/passwd"}))
            .await,
    );
    assert!(scheme.contains("Only http and https"), "{scheme}");
}

#[tokio::test]
async fn a_private_address_is_refused_without_fetch_allow() {
    let web = web().await;
    let client = client(&[], Duration::from_secs(2)).await;
    for host in [web.addr.clone(), web.addr.replace("127.0.0.1", "localhost")] {
        let refused = client
            .call("import_url", json!({"url": format!("http://{host}/page")}))
            .await
            .unwrap_err()
            .message();
        assert!(refused.contains("--fetch-allow"), "{host}: {refused}");
    }
}

#[tokio::test]
async fn a_cancelled_import_stops_downloading() {
    let web = web().await;
    let client = client(&["127.0.0.1"], Duration::from_secs(30)).await;
    let url = json!({"url": format!("http://{}/drip", web.addr)});
    let options = CallOptions::default().timeout(Duration::from_millis(500));
    let cancelled = client.call_with("import_url", url, options).await;
    assert!(cancelled.is_err(), "the client gave up");
    // The drip notices that nobody reads any more, well before its 10 s are up.
    for _ in 0..50 {
        if web.left.load(Ordering::SeqCst) == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the download went on after the call was cancelled");
}

/// `get_note`'s title, through the tool.
trait GetNote {
    async fn get_note_title(&self, id: u64) -> String;
}

impl GetNote for Client {
    async fn get_note_title(&self, id: u64) -> String {
        let got = self.call("get_note", json!({"note_id": id})).await.unwrap();
        got.structured().unwrap()["title"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

#[tokio::test]
async fn the_timeout_bounds_the_whole_download_redirects_included() {
    let web = web().await;
    let client = client(&["127.0.0.1"], Duration::from_secs(2)).await;
    let started = std::time::Instant::now();
    let url = json!({"url": format!("http://{}/slow/5", web.addr)});
    let answer = client.call("import_url", url).await;
    let elapsed = started.elapsed();
    let text = match answer {
        Ok(outcome) => {
            assert!(
                outcome.is_error(),
                "five slow hops fit in 2 s: {}",
                outcome.text()
            );
            outcome.text()
        }
        Err(err) => err.message().to_owned(),
    };
    assert!(text.contains("timed out"), "{text}");
    assert!(
        elapsed < Duration::from_millis(3500),
        "each hop was bounded, not the download: {elapsed:?}"
    );
}
