//! One request on its own connection, to wait for a server and to check its answers before
//! it is measured (wrk counts statuses, not contents).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;
use toolsmith_tests::http::Response;

/// Waits until `addr` accepts connections (at most `limit`).
pub fn wait_ready(addr: &str, limit: Duration) -> Result<(), String> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if TcpStream::connect(addr).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("nothing listened on {addr} within {limit:?}"))
}

/// POSTs `body` with `headers` (the MCP ones of its revision) to `http://addr/mcp` and
/// returns the JSON-RPC message of the answer (a JSON body, or the last `data:` of an event
/// stream).
pub fn post(
    addr: &str,
    body: &str,
    headers: &[(String, String)],
    token: Option<&str>,
) -> Result<Value, String> {
    post_to(addr, "/mcp", body, headers, token)
}

/// [`post`] to `path` (a server whose MCP endpoint is elsewhere).
pub fn post_to(
    addr: &str,
    path: &str,
    body: &str,
    headers: &[(String, String)],
    token: Option<&str>,
) -> Result<Value, String> {
    let mut extra = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    for (header, value) in headers {
        extra.push_str(&format!("{header}: {value}\r\n"));
    }
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let response = exchange(addr, &request)?;
    if response.status != 200 {
        return Err(format!("answered {}: {}", response.status, response.body));
    }
    response
        .messages()
        .pop()
        .ok_or_else(|| format!("no JSON-RPC message in {}", response.body))
}

/// GETs `path` of `http://addr` and returns the body of a 200 answer.
pub fn get(addr: &str, path: &str) -> Result<String, String> {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let response = exchange(addr, &request)?;
    match response.status {
        200 => Ok(response.body),
        status => Err(format!("GET {path} answered {status}: {}", response.body)),
    }
}

/// `method` `path` of `http://addr` with a bearer token and a JSON `body` (a REST API's):
/// the status and the body.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&str>,
) -> Result<(u16, String), String> {
    let body = body.unwrap_or("");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let response = exchange(addr, &request)?;
    Ok((response.status, response.body))
}

/// Sends `request` (a whole HTTP/1.1 request that closes its connection) to `addr` and reads
/// the response to its end (at most 10 s between reads).
fn exchange(addr: &str, request: &str) -> Result<Response, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    Response::parse(&raw).ok_or_else(|| "no HTTP response".to_owned())
}
