//! A minimal HTTP/1.1 client for tests that check status codes and headers of the Streamable
//! HTTP transport exactly, and a server process started on a free port.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// A response, its body decoded (chunked or not).
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC messages of the body: the JSON itself, or every SSE `data:` line.
    pub fn messages(&self) -> Vec<Value> {
        if self
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            self.body
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .filter_map(|d| serde_json::from_str(d).ok())
                .collect()
        } else {
            serde_json::from_str(&self.body).into_iter().collect()
        }
    }
}

/// The value of the first `<input ... name="NAME" value="...">` of `html` (a form's field).
pub fn form_value(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let at = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no field {name} in {html}"))
        + marker.len();
    html[at..at + html[at..].find('"').expect("a closing quote")].to_owned()
}

/// Sends one request to `addr` (`host:port`) and reads the whole response (the connection
/// closes after it). `headers` come after `Host` (unless given) and `Connection: close`.
pub async fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Response {
    let mut stream = TcpStream::connect(addr).await.expect("the server accepts");
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .expect("the response ends within 20 s")
        .unwrap();
    Response::parse(&raw).expect("a status line")
}

/// Sends a bodiless request to `addr` and reads the response's head only (status line and
/// headers): for a stream that stays open.
pub async fn head(addr: &str, method: &str, path: &str, headers: &[(&str, &str)]) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("the server accepts");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut reader = BufReader::new(stream);
    let mut answer = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.unwrap_or(0) == 0 || line == "\r\n" {
            return answer;
        }
        answer.push_str(&line);
    }
}

/// A JSON-RPC POST with the headers every client sends.
pub async fn post(addr: &str, path: &str, body: &Value, extra: &[(&str, &str)]) -> Response {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    headers.extend_from_slice(extra);
    request(addr, "POST", path, &headers, &body.to_string()).await
}

impl Response {
    /// A whole HTTP/1.1 response as read off the socket (its body de-chunked); `None` when
    /// it has no status line.
    pub fn parse(raw: &[u8]) -> Option<Response> {
        let text = String::from_utf8_lossy(raw);
        let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())?;
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
            .collect();
        let chunked = headers
            .iter()
            .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
        let body = if chunked {
            dechunk(rest)
        } else {
            rest.to_owned()
        };
        Some(Response {
            status,
            headers,
            body,
        })
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || after.len() < size {
            break;
        }
        body.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    body
}

/// A server process serving over HTTP on a free port, killed when dropped.
pub struct HttpServer {
    pub child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// The MCP path (`/mcp`).
    pub path: String,
    /// Everything the server wrote to stderr so far.
    pub stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl HttpServer {
    /// Starts `program serve --http 127.0.0.1:0 args...` and waits for its `listening on`.
    pub async fn start(program: &str, args: &[&str]) -> HttpServer {
        Self::start_with(program, args, &[]).await
    }

    /// [`start`](Self::start) with environment variables.
    pub async fn start_with(program: &str, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
        Self::start_after(program, &[], args, env).await
    }

    /// [`start_with`](Self::start_with), with `before` ahead of `serve` (`toolsmith gateway
    /// --config FILE --`). Stateless (`--stateless`) unless `args` name the mode
    /// (`--sessions`, `--stateless`): a test says which mode it checks.
    pub async fn start_after(
        program: &str,
        before: &[&str],
        args: &[&str],
        env: &[(&str, &str)],
    ) -> HttpServer {
        let named = args
            .iter()
            .any(|arg| arg.starts_with("--sessions") || arg.starts_with("--stateless"));
        let mode: &[&str] = if named { &[] } else { &["--stateless"] };
        Self::spawn(program, before, &[mode, args].concat(), env).await
    }

    /// `program serve --http 127.0.0.1:0 args...` in the default mode (no mode flag unless
    /// `args` give one).
    pub async fn start_default(program: &str, args: &[&str]) -> HttpServer {
        Self::spawn(program, &[], args, &[]).await
    }

    async fn spawn(
        program: &str,
        before: &[&str],
        args: &[&str],
        env: &[(&str, &str)],
    ) -> HttpServer {
        let mut child = Command::new(program)
            .envs(env.iter().copied())
            .args(before)
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let kept = stderr.clone();
        let url = tokio::time::timeout(Duration::from_secs(20), async {
            while let Ok(Some(line)) = lines.next_line().await {
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
                if let Some(url) = line.split("listening on ").nth(1) {
                    return url.trim().to_owned();
                }
            }
            panic!("the server ended before it listened");
        })
        .await
        .expect("the server listens within 20 s");
        // Keep draining stderr, so that the server never blocks on it, into `stderr`.
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let mut kept = kept.lock().unwrap();
                kept.push_str(&line);
                kept.push('\n');
            }
        });
        let rest = url.trim_start_matches("http://");
        let (addr, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        HttpServer {
            child,
            addr: addr.to_owned(),
            path: path.to_owned(),
            stderr,
        }
    }

    pub async fn post(&self, body: &Value, extra: &[(&str, &str)]) -> Response {
        post(&self.addr, &self.path, body, extra).await
    }
}
