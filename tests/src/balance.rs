//! A loopback load balancer for tests: each HTTP request a client sends, even on one
//! keep-alive connection, goes to the next replica in turn (on a connection of its own,
//! `Connection: close`), so that consecutive requests of one client reach different replicas.
//! Requests need a `Content-Length` (no chunked bodies), as the MCP clients here send them.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The balancer: clients connect to `addr`.
pub struct RoundRobin {
    pub addr: SocketAddr,
    /// The replica (index into the list given) each request went to, in order.
    pub served: Arc<Mutex<Vec<usize>>>,
}

impl RoundRobin {
    /// Listens on 127.0.0.1 (a free port) in front of `replicas`.
    pub async fn start(replicas: Vec<SocketAddr>) -> io::Result<RoundRobin> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let served = Arc::new(Mutex::new(Vec::new()));
        let next = Arc::new(AtomicUsize::new(0));
        let replicas = Arc::new(replicas);
        let log = served.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let (replicas, next, log) = (replicas.clone(), next.clone(), log.clone());
                tokio::spawn(async move {
                    let _ = relay(client, &replicas, &next, &log).await;
                });
            }
        });
        Ok(RoundRobin { addr, served })
    }
}

async fn relay(
    client: TcpStream,
    replicas: &[SocketAddr],
    next: &AtomicUsize,
    log: &Mutex<Vec<usize>>,
) -> io::Result<()> {
    let (mut read, mut write) = client.into_split();
    let mut buf = Vec::new();
    loop {
        let head_end = loop {
            if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
            if read.read_buf(&mut buf).await? == 0 {
                return Ok(());
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let length = head
            .lines()
            .filter_map(|line| line.split_once(':'))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
            .and_then(|(_, value)| value.trim().parse::<usize>().ok())
            .unwrap_or(0);
        while buf.len() < head_end + length {
            if read.read_buf(&mut buf).await? == 0 {
                return Ok(());
            }
        }
        let mut request: Vec<u8> = head
            .trim_end()
            .lines()
            .filter(|line| {
                !line
                    .split_once(':')
                    .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("connection"))
            })
            .flat_map(|line| [line, "\r\n"])
            .collect::<String>()
            .into_bytes();
        request.extend_from_slice(b"Connection: close\r\n\r\n");
        request.extend_from_slice(&buf[head_end..head_end + length]);
        buf.drain(..head_end + length);
        let replica = next.fetch_add(1, Ordering::Relaxed) % replicas.len();
        log.lock().unwrap().push(replica);
        let mut upstream = TcpStream::connect(replicas[replica]).await?;
        upstream.write_all(&request).await?;
        tokio::io::copy(&mut upstream, &mut write).await?;
    }
}
