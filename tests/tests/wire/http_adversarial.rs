//! A hostile client against a real server on loopback: hundreds of malformed HTTP messages,
//! 300 half-sent heads, a dripped body, and 3,000 idle connections. Through all of it, the
//! server answers a call within 2 s; a flood of task calls meets its cap with flat memory.
//! Every loop is bounded in count and time.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolsmith_tests::http::{HttpServer, Response};

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture_server");

/// A call is answered within 2 s: `tools/call echo` on a new connection.
async fn answers_a_call(server: &HttpServer, what: &str) {
    let start = Instant::now();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "still here"}}});
    let answered = tokio::time::timeout(Duration::from_secs(2), server.post(&body, &[])).await;
    let answer = answered.unwrap_or_else(|_| panic!("{what}: no answer to a call within 2 s"));
    assert_eq!(answer.status, 200, "{what}: {answer:?}");
    assert!(answer.body.contains("still here"), "{what}: {answer:?}");
    eprintln!("{what}: a call answered in {:?}", start.elapsed());
}

/// Sends `bytes` on a new connection, ends the sending side, and reads what comes back until
/// the server closes (at most 5 s): the status of the response, if any.
async fn send_raw(addr: &str, bytes: &[u8]) -> Option<u16> {
    let mut stream = TcpStream::connect(addr).await.ok()?;
    // The server may close before it read everything (a head too large): not an error.
    let _ = stream.write_all(bytes).await;
    let _ = stream.shutdown().await;
    let mut read = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut read)).await;
    Response::parse(&read).map(|r| r.status)
}

/// A small deterministic generator (xorshift), so that a failure can be replayed.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// The malformed messages: random bytes, then the classic smuggling and overflow shapes.
fn malformed(addr: &str) -> Vec<(String, Vec<u8>)> {
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    let mut all = Vec::new();
    for i in 0..250 {
        let len = 1 + (random.next() % 2048) as usize;
        let bytes = random.bytes(len);
        all.push((format!("random bytes #{i}"), bytes));
    }
    for i in 0..50 {
        // A plausible request line followed by garbage.
        let mut bytes = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").into_bytes();
        let len = 1 + (random.next() % 512) as usize;
        bytes.extend(random.bytes(len));
        bytes.extend_from_slice(b"\r\n\r\n");
        all.push((format!("garbage after a request line #{i}"), bytes));
    }
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let head = |extra: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}"
        )
    };
    all.push((
        "bad chunked encoding".into(),
        format!(
            "{}Transfer-Encoding: chunked\r\n\r\nZZZ\r\n{body}\r\n0\r\n\r\n",
            head("")
        )
        .into_bytes(),
    ));
    all.push((
        "a chunk longer than said".into(),
        format!(
            "{}Transfer-Encoding: chunked\r\n\r\n2\r\n{body}\r\n0\r\n\r\n",
            head("")
        )
        .into_bytes(),
    ));
    all.push((
        "conflicting Content-Length headers".into(),
        format!(
            "{}Content-Length: {}\r\nContent-Length: 5\r\n\r\n{body}",
            head(""),
            body.len()
        )
        .into_bytes(),
    ));
    all.push((
        "Content-Length and chunked together".into(),
        format!(
            "{}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            head("")
        )
        .into_bytes(),
    ));
    all.push((
        "a 200 KB header".into(),
        format!("{}X-Big: {}\r\n\r\n", head(""), "a".repeat(200 * 1024)).into_bytes(),
    ));
    let many: String = (0..500).map(|i| format!("X-H{i}: v\r\n")).collect();
    all.push((
        "500 headers".into(),
        format!(
            "{}{many}Content-Length: {}\r\n\r\n{body}",
            head(""),
            body.len()
        )
        .into_bytes(),
    ));
    all.push((
        "an HTTP/9.9 request line".into(),
        format!("POST /mcp HTTP/9.9\r\nHost: {addr}\r\n\r\n").into_bytes(),
    ));
    all.push((
        "a negative Content-Length".into(),
        format!("{}Content-Length: -1\r\n\r\n{body}", head("")).into_bytes(),
    ));
    all.push((
        "a header without a colon".into(),
        format!("{}NoColonHere\r\n\r\n", head("")).into_bytes(),
    ));
    all.push((
        "a NUL in the request line".into(),
        b"POST /m\0cp HTTP/1.1\r\n\r\n".to_vec(),
    ));
    all
}

#[tokio::test]
async fn malformed_messages_get_an_error_or_a_close_and_the_server_serves_on() {
    let server = HttpServer::start(FIXTURE, &[]).await;
    let cases = malformed(&server.addr);
    assert!(cases.len() >= 300, "{}", cases.len());
    let mut statuses = std::collections::BTreeMap::new();
    // A few at a time, each bounded by `send_raw`'s 5 s.
    for chunk in cases.chunks(25) {
        let sent: Vec<_> = chunk
            .iter()
            .map(|(what, bytes)| {
                let addr = server.addr.clone();
                let (what, bytes) = (what.clone(), bytes.clone());
                tokio::spawn(async move { (what, send_raw(&addr, &bytes).await) })
            })
            .collect();
        for done in sent {
            let (what, status) = done.await.unwrap();
            if let Some(status) = status {
                assert!(
                    (400..500).contains(&status) || status == 505,
                    "{what}: answered {status}"
                );
            }
            *statuses.entry(status).or_insert(0) += 1;
        }
    }
    eprintln!("malformed messages, by status (None: closed without an answer): {statuses:?}");
    answers_a_call(&server, "after the malformed messages").await;
}

#[tokio::test]
async fn half_sent_heads_and_a_dripped_body_do_not_stop_the_server() {
    let server = HttpServer::start(FIXTURE, &[]).await;
    let mut held = Vec::new();
    for _ in 0..300 {
        let mut stream = TcpStream::connect(&server.addr).await.unwrap();
        let head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", server.addr);
        stream.write_all(head.as_bytes()).await.unwrap();
        held.push(stream);
    }
    answers_a_call(&server, "with 300 half-sent heads open").await;
    let mut drip = TcpStream::connect(&server.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{",
        server.addr
    );
    drip.write_all(head.as_bytes()).await.unwrap();
    let dripping = tokio::spawn(async move {
        for _ in 0..8 {
            tokio::time::sleep(Duration::from_millis(500)).await;
            if drip.write_all(b" ").await.is_err() {
                break;
            }
        }
        drip
    });
    answers_a_call(&server, "with a body dripping").await;
    let _drip = dripping.await.unwrap();
    answers_a_call(&server, "after 4 s of dripping").await;
    drop(held);
}

/// Raises this process's soft limit on open files to `want` (or its hard limit).
fn raise_fd_limit(want: u64) -> u64 {
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        let mut limit = std::mem::zeroed::<libc::rlimit>();
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        let target = want.min(limit.rlim_max as u64);
        if (limit.rlim_cur as u64) < target {
            limit.rlim_cur = target as _;
            assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
        }
        limit.rlim_cur as u64
    }
}

#[tokio::test]
async fn three_thousand_idle_connections_do_not_stop_the_server() {
    const IDLE: usize = 3000;
    let limit = raise_fd_limit(IDLE as u64 + 512);
    assert!(
        limit >= IDLE as u64 + 256,
        "this test needs {} open files; the hard limit allows {limit} (raise it with ulimit -n)",
        IDLE + 256
    );
    // Idle connections are closed after the header timeout: make it longer than the test.
    let server = HttpServer::start(FIXTURE, &["--http-header-timeout", "120"]).await;
    let start = Instant::now();
    let mut idle = Vec::with_capacity(IDLE);
    for _ in 0..IDLE {
        idle.push(TcpStream::connect(&server.addr).await.unwrap());
    }
    eprintln!("{IDLE} idle connections opened in {:?}", start.elapsed());
    // Let the server accept them all before the call comes.
    tokio::time::sleep(Duration::from_millis(500)).await;
    answers_a_call(&server, "with 3,000 idle connections open").await;
    drop(idle);
}

/// The resident set of process `pid`, in KiB, from `/proc`.
fn rss_kib(pid: u32) -> u64 {
    toolsmith_tests::proc_status_kib(pid, "VmRSS")
}

/// One anonymous client floods the notes server with long task calls (10 notes, 10 s
/// each): past its 100 working tasks every call is refused at once, the server's memory
/// stays flat, and an ordinary call is still answered.
#[tokio::test]
async fn a_flood_of_tasks_is_capped_per_caller_and_memory_stays_flat() {
    let notes = toolsmith_tests::example_binary("notes");
    let server = HttpServer::start(notes.to_str().unwrap(), &[]).await;
    let pid = server.child.id().expect("the server runs");
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "flood", "version": "0"},
    });
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "import_notes"),
    ];
    let before = rss_kib(pid);
    let (mut made, mut refused) = (0, 0);
    let started = Instant::now();
    for id in 0..600u64 {
        if started.elapsed() > Duration::from_secs(60) {
            break;
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "import_notes", "arguments": {"count": 10, "pace_ms": 10_000},
            "_meta": meta}});
        let answer = server.post(&body, &headers).await;
        assert_eq!(answer.status, 200, "{answer:?}");
        if answer.body.contains("taskId") {
            made += 1;
        } else if answer.body.contains("this caller has 100 tasks working") {
            refused += 1;
        } else {
            panic!("neither a task nor a refusal: {}", answer.body);
        }
    }
    let after = rss_kib(pid);
    eprintln!(
        "tasks flood: {made} made, {refused} refused in {:?}; RSS {before} KiB -> {after} KiB",
        started.elapsed()
    );
    assert_eq!(made, 100, "the per-caller cap");
    assert_eq!(made + refused, 600);
    assert!(
        after.saturating_sub(before) < 64 * 1024,
        "RSS grew by {} KiB",
        after - before
    );
    answers_a_notes_call(&server).await;
}

/// `search_notes` is answered within 2 s.
async fn answers_a_notes_call(server: &HttpServer) {
    let body = json!({"jsonrpc": "2.0", "id": 9999, "method": "tools/call",
        "params": {"name": "search_notes", "arguments": {"query": "x"}}});
    let answer = tokio::time::timeout(Duration::from_secs(2), server.post(&body, &[]))
        .await
        .expect("a call is answered within 2 s");
    assert_eq!(answer.status, 200, "{answer:?}");
}
