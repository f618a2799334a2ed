//! Helpers of the confirmation and elicitation tests (`tests/wire/confirm.rs`,
//! `tests/wire/rounds.rs`, `tests/wire/approvals.rs`), which run the `asking` binary.

use serde_json::{Value, json};

use crate::raw::{Raw, call};

/// A key of 36 bytes, as `--state-key` takes it.
pub const KEY: &str = "a2V5LWtleS1rZXkta2V5LWtleS1rZXkta2V5LWtleS1rZXk=";

/// The first text block of a response's result.
pub fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
}

/// Whether a response is an error result of kind `refused`.
pub fn refused(response: &Value) -> bool {
    response["result"]["isError"] == true
        && response["result"]["_meta"]["dev.toolsmith/error"] == "refused"
}

/// The `_meta` of a 2026-07-28 request from a client with these capabilities.
pub fn meta(capabilities: Value) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities})
}

/// A 2026-07-28 call, optionally a retry with `state` and `responses`.
pub fn modern_call(id: u64, name: &str, args: Value, retry: Option<(&str, Value)>) -> Value {
    let mut params = json!({"name": name, "arguments": args,
        "_meta": meta(json!({"elicitation": {}, "sampling": {}}))});
    if let Some((state, responses)) = retry {
        params["requestState"] = state.into();
        params["inputResponses"] = responses;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// A user's yes to a confirmation.
pub fn accept() -> Value {
    json!({"action": "accept", "content": {"confirm": true}})
}

/// A stdio session at 2025-11-25 with `program`, of a client that can answer elicitation
/// and sampling.
pub async fn session(program: &str, env: &[(&str, &str)]) -> Raw {
    let mut command = tokio::process::Command::new(program);
    command.envs(env.iter().copied());
    session_of(command, json!({"elicitation": {}, "sampling": {}})).await
}

/// A stdio session at 2025-11-25 with the server `command` starts, of a client with these
/// capabilities: `initialize` and `notifications/initialized`.
pub async fn session_of(command: tokio::process::Command, capabilities: Value) -> Raw {
    let mut raw = Raw::spawn(command, std::process::Stdio::null());
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "confirm-test", "version": "0"}}});
    assert!(raw.ask(&init).await.get("result").is_some());
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    raw
}

/// How many times the `asking` binary's changing tools ran.
pub async fn runs(raw: &mut Raw, id: u64, modern: bool) -> u64 {
    let request = if modern {
        modern_call(id, "runs", json!({}), None)
    } else {
        call(id, "runs", json!({}))
    };
    let answer = raw.ask(&request).await;
    text(&answer).parse().unwrap_or(u64::MAX)
}

/// Reads the event stream into `seen` until a `data:` line holding `needle`, and returns it.
pub async fn read_until(
    stream: &mut tokio::net::TcpStream,
    seen: &mut String,
    needle: &str,
) -> Value {
    let found = |seen: &str| {
        seen.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| data.contains(needle))
            .find_map(|data| serde_json::from_str::<Value>(data).ok())
    };
    let read = async {
        let mut buffer = [0u8; 4096];
        loop {
            if let Some(message) = found(seen) {
                // Later reads start after what was found.
                let end = seen.find(needle).unwrap_or(0);
                let end = seen[end..].find('\n').map_or(seen.len(), |n| end + n);
                seen.replace_range(..end, "");
                return message;
            }
            let n = tokio::io::AsyncReadExt::read(stream, &mut buffer)
                .await
                .unwrap();
            assert!(n > 0, "the stream ended before {needle}: {seen}");
            seen.push_str(&String::from_utf8_lossy(&buffer[..n]));
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), read)
        .await
        .unwrap_or_else(|_| panic!("no {needle} within 10 s"))
}

/// Opens a 2025-11-25 session with `server` (`--sessions`) for a client with these
/// capabilities, `initialize` and `notifications/initialized`: the session's id.
pub async fn open_session(server: &crate::http::HttpServer, capabilities: Value) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "raw-test-client", "version": "0"}}});
    let opened = server.post(&init, &[]).await;
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let headers = session_headers(&session);
    assert_eq!(server.post(&initialized, &headers).await.status, 202);
    session
}

/// The headers of a request in `session`.
pub fn session_headers(session: &str) -> [(&'static str, &str); 2] {
    [
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-11-25"),
    ]
}

/// Sends `message` to `server` in `session` (GET when `message` is `None`: the session's own
/// stream) and returns the connection, whose event stream [`read_until`] reads as it comes.
pub async fn stream_in_session(
    server: &crate::http::HttpServer,
    session: &str,
    message: Option<&Value>,
) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let mut stream = tokio::net::TcpStream::connect(&server.addr).await.unwrap();
    let common = format!(
        "Host: {}\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n",
        server.addr
    );
    let head = match message {
        None => format!(
            "GET {} HTTP/1.1\r\n{common}Accept: text/event-stream\r\n\r\n",
            server.path
        ),
        Some(message) => {
            let body = message.to_string();
            format!(
                "POST {} HTTP/1.1\r\n{common}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
                server.path,
                body.len()
            )
        }
    };
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// What `program serve --http 127.0.0.1:0 ARGS` logs to stderr before it listens.
pub async fn startup_log(program: &str, args: &[&str]) -> String {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(program)
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(args)
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut log = String::new();
    tokio::time::timeout(std::time::Duration::from_secs(20), async {
        while let Ok(Some(line)) = lines.next_line().await {
            log.push_str(&line);
            log.push('\n');
            if line.contains("listening on") {
                break;
            }
        }
    })
    .await
    .expect("the server listens within 20 s");
    log
}

/// The address of the metrics a server serves on `--metrics-addr`, read from its stderr
/// `lines` (its `metrics at http://ADDR/metrics` line, within 20 s); the lines after it are
/// left to read.
pub async fn metrics_address<R>(lines: &mut tokio::io::Lines<R>) -> String
where
    R: tokio::io::AsyncBufRead + Unpin,
{
    let found = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(url) = line.split("metrics at http://").nth(1) {
                return url.trim().trim_end_matches("/metrics").to_owned();
            }
        }
        panic!("the server ended before it served metrics");
    });
    found.await.expect("metrics are served within 20 s")
}
