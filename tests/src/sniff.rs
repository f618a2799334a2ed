//! A loopback TCP relay in front of an HTTP server that keeps every byte a client sends, so a
//! test sees the HTTP requests exactly as they went over the wire (method, headers, body).

use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as sent: its method, its headers (names lowercased) and its body.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The bytes each connection's client sent, one buffer per connection, in accept order.
type Logs = Arc<Mutex<Vec<Arc<Mutex<Vec<u8>>>>>>;

/// The relay: clients connect to `addr`, and each connection is relayed to the upstream.
pub struct Sniffer {
    pub addr: SocketAddr,
    connections: Logs,
}

impl Sniffer {
    /// Listens on 127.0.0.1 (a free port) and relays to `upstream`.
    pub async fn start(upstream: SocketAddr) -> io::Result<Sniffer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        Sniffer::on(listener, upstream)
    }

    /// Relays what `listener` accepts to `upstream`: for an upstream that must know the
    /// relay's address before it starts (its public URL).
    pub fn on(listener: TcpListener, upstream: SocketAddr) -> io::Result<Sniffer> {
        let addr = listener.local_addr()?;
        let connections: Logs = Arc::default();
        let all = connections.clone();
        tokio::spawn(async move {
            while let Ok((down, _)) = listener.accept().await {
                let Ok(up) = TcpStream::connect(upstream).await else {
                    continue;
                };
                let log = Arc::new(Mutex::new(Vec::new()));
                all.lock().unwrap().push(log.clone());
                tokio::spawn(relay(down, up, log));
            }
        });
        Ok(Sniffer { addr, connections })
    }

    /// Every complete request sent so far, connection by connection, in order.
    pub fn requests(&self) -> Vec<Request> {
        let connections = self.connections.lock().unwrap().clone();
        connections
            .iter()
            .flat_map(|log| parse(&log.lock().unwrap()))
            .collect()
    }
}

async fn relay(down: TcpStream, up: TcpStream, log: Arc<Mutex<Vec<u8>>>) {
    let (mut down_read, mut down_write) = down.into_split();
    let (mut up_read, mut up_write) = up.into_split();
    let requests = async move {
        let mut buf = vec![0u8; 16 * 1024];
        while let Ok(n) = down_read.read(&mut buf).await {
            if n == 0 {
                break;
            }
            log.lock().unwrap().extend_from_slice(&buf[..n]);
            if up_write.write_all(&buf[..n]).await.is_err() {
                break;
            }
        }
        let _ = up_write.shutdown().await;
    };
    // The server's close is passed on: a client that reads to the end (`Connection: close`)
    // gets its end while its own side is still open.
    let responses = async move {
        let _ = tokio::io::copy(&mut up_read, &mut down_write).await;
        let _ = down_write.shutdown().await;
    };
    let _ = tokio::join!(requests, responses);
}

/// The requests in `bytes`, each a head and a Content-Length body; stops at anything else.
fn parse(bytes: &[u8]) -> Vec<Request> {
    let mut requests = Vec::new();
    let mut rest = bytes;
    while let Some(end) = rest.windows(4).position(|w| w == b"\r\n\r\n") {
        let head = String::from_utf8_lossy(&rest[..end]);
        let mut lines = head.split("\r\n");
        let method = lines
            .next()
            .and_then(|l| l.split(' ').next())
            .unwrap_or("")
            .to_owned();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let length = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        let body_start = end + 4;
        if rest.len() < body_start + length {
            break;
        }
        let chunked = headers.iter().any(|(n, _)| n == "transfer-encoding");
        requests.push(Request {
            method,
            headers,
            body: rest[body_start..body_start + length].to_vec(),
        });
        if chunked {
            break; // no client of these tests sends one; its body is not parsed
        }
        rest = &rest[body_start + length..];
    }
    requests
}
