//! Accepting and keeping connections, on hyper's HTTP/1 server: at most `max_connections`
//! open at once (past the cap, new ones wait in the kernel's backlog; an open one is never
//! closed for it), and each closed when its client is slow or gone quiet:
//!
//! - a request head must arrive within `header` of the connection's opening, or of the
//!   first byte of a later request;
//! - between requests, a keep-alive connection may stay silent for `idle`.
//!
//! The clock of a connection stops while one of its requests is being answered (a long
//! call, an event stream), and the idle time counts from the last byte written: bodies have
//! their own deadline, where they are read.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_service::Service;

/// How long a connection may take to do its part.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// To send a request head.
    pub(crate) header: Duration,
    /// To start a new request on a keep-alive connection.
    pub(crate) idle: Duration,
    /// Connections open at once.
    pub(crate) max_connections: usize,
}

/// Connections the system queues for the server to accept (it caps this at its own
/// `somaxconn`): a burst of clients connecting at once waits there instead of having its
/// SYNs dropped and retried a second later, as with tokio's default of 128.
const BACKLOG: u32 = 4096;

/// A listener on `addr`, with room for a burst of new connections.
pub(super) fn bind(addr: std::net::SocketAddr) -> io::Result<TcpListener> {
    let socket = match addr {
        std::net::SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        std::net::SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    // A restarted server binds its port again at once (as std's and tokio's `bind` do).
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// Serves `router` on the connections of `listener` until `stop`; then accepts no more, asks
/// every connection to close once its request in flight is answered, and returns when all
/// are closed.
pub(super) async fn accept(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop: CancellationToken,
    metrics: Option<crate::metrics::Metrics>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let connections = TaskTracker::new();
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = stop.cancelled() => break,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            // The client gave up before it was accepted: nothing to do.
            Err(err) if err.kind() == io::ErrorKind::ConnectionAborted => continue,
            // Out of file descriptors or memory, most likely: wait for some to be freed.
            Err(err) => {
                tracing::warn!(%err, "cannot accept a connection; trying again in 100 ms");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // Answers leave at once: without TCP_NODELAY, Nagle's algorithm holds a small answer
        // back until the client's delayed ACK (tens of milliseconds per call).
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::debug!(%err, "TCP_NODELAY could not be set");
        }
        let connection = serve(tcp, router.clone(), limits, stop.clone(), permit);
        let connection = {
            // Counted as open until its task ends.
            let open = metrics.as_ref().map(|metrics| metrics.connection());
            async move {
                let _open = open;
                connection.await;
            }
        };
        connections.spawn(connection);
    }
    drop(listener);
    connections.close();
    connections.wait().await;
}

/// One connection, until its client closes it, it breaks a limit, or the server stops.
async fn serve(
    tcp: TcpStream,
    router: Router,
    limits: Limits,
    stop: CancellationToken,
    _permit: OwnedSemaphorePermit,
) {
    let clock = Arc::new(Clock::new(&limits));
    let io = TokioIo::new(Watched {
        tcp,
        clock: clock.clone(),
    });
    let answering = clock.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let busy = Busy::start(answering.clone());
        let mut router = router.clone();
        async move {
            let response = match router.call(request.map(Body::new)).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok::<_, Infallible>(super::body::holding(response, busy))
        }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        // The clock below keeps the time: hyper's own header timer would also close
        // keep-alive connections after the header limit, however long `idle` is.
        .header_read_timeout(None)
        .serve_connection(io, service);
    tokio::pin!(connection);
    // One timer for the connection's life, moved only when its deadline comes nearer (a
    // deadline that moved later is found when the timer fires, and the timer follows it):
    // a request on a busy connection costs no timer of its own.
    let timer = tokio::time::sleep_until(clock.deadline(&limits));
    tokio::pin!(timer);
    let stopped = stop.cancelled();
    tokio::pin!(stopped);
    let mut closing = false;
    loop {
        tokio::select! {
            served = connection.as_mut() => {
                if let Err(err) = served {
                    tracing::debug!(%err, "connection ended with an error");
                }
                return;
            }
            () = clock.changed.notified() => {
                let deadline = clock.deadline(&limits);
                if deadline < timer.deadline() {
                    timer.as_mut().reset(deadline);
                }
            }
            () = timer.as_mut() => {
                let deadline = clock.deadline(&limits);
                if deadline <= Instant::now() {
                    tracing::debug!("closing a connection that was slow or idle too long");
                    return;
                }
                timer.as_mut().reset(deadline);
            }
            () = stopped.as_mut(), if !closing => {
                // Nothing being answered: close now (hyper would keep a connection open
                // that has not sent its first request). Else after the answer.
                if clock.busy.load(Ordering::Acquire) == 0 {
                    return;
                }
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
        }
    }
}

/// What a connection is doing, for its deadlines (times in milliseconds since it opened).
struct Clock {
    opened: Instant,
    /// Requests being answered (more than one when pipelined).
    busy: AtomicU32,
    /// When the first byte of the request head being read came, plus one (0: none coming).
    head: AtomicU64,
    /// When the connection last went idle.
    idle: AtomicU64,
    /// Told when a deadline may have come nearer.
    changed: Notify,
    /// The idle limit is shorter than the header limit: going idle may bring the deadline
    /// nearer.
    idle_nearer: bool,
}

impl Clock {
    fn new(limits: &Limits) -> Clock {
        Clock {
            idle_nearer: limits.idle < limits.header,
            opened: Instant::now(),
            busy: AtomicU32::new(0),
            // The first request's head is due from the moment the connection opens.
            head: AtomicU64::new(1),
            idle: AtomicU64::new(0),
            changed: Notify::new(),
        }
    }

    fn now(&self) -> u64 {
        self.opened.elapsed().as_millis() as u64
    }

    /// When the connection is to be closed unless something happens first (while a request
    /// is answered, a time to look again).
    fn deadline(&self, limits: &Limits) -> Instant {
        if self.busy.load(Ordering::Acquire) > 0 {
            return after(Instant::now(), limits.header.max(limits.idle));
        }
        let head = self.head.load(Ordering::Acquire);
        if head > 0 {
            return after(self.opened + Duration::from_millis(head - 1), limits.header);
        }
        let idle = self.opened + Duration::from_millis(self.idle.load(Ordering::Acquire));
        after(idle, limits.idle)
    }

    /// Bytes went to the client: a response still being written keeps the connection
    /// from counting as idle (hyper ends a response's body before its last bytes leave).
    fn wrote(&self) {
        if self.busy.load(Ordering::Acquire) == 0 && self.head.load(Ordering::Acquire) == 0 {
            self.idle.store(self.now(), Ordering::Release);
        }
    }

    /// Bytes came from the client: between requests, they start a new head.
    fn read(&self) {
        if self.busy.load(Ordering::Acquire) == 0 && self.head.load(Ordering::Acquire) == 0 {
            self.head.store(self.now() + 1, Ordering::Release);
            self.changed.notify_one();
        }
    }
}

/// `at` plus `wait`, or far ahead when that overflows (a limit of `Duration::MAX`).
fn after(at: Instant, wait: Duration) -> Instant {
    at.checked_add(wait)
        .unwrap_or_else(|| at + Duration::from_secs(30 * 24 * 3600))
}

/// A request being answered, until its response body is written or dropped.
struct Busy(Arc<Clock>);

impl Busy {
    fn start(clock: Arc<Clock>) -> Busy {
        clock.busy.fetch_add(1, Ordering::AcqRel);
        clock.head.store(0, Ordering::Release);
        Busy(clock)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let clock = &self.0;
        // Going idle moves the deadline later (the timer finds it when it fires), unless
        // the idle limit is the shorter.
        if clock.busy.fetch_sub(1, Ordering::AcqRel) == 1 {
            clock.idle.store(clock.now(), Ordering::Release);
            if clock.idle_nearer {
                clock.changed.notify_one();
            }
        }
    }
}

/// A connection's socket, telling its clock when bytes come in.
struct Watched {
    tcp: TcpStream,
    clock: Arc<Clock>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.tcp).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.clock.read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.tcp).poll_write(cx, buf);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            self.clock.wrote();
        }
        written
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs);
        if matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            self.clock.wrote();
        }
        written
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// The connection cap when none is given: three quarters of the file descriptors this
/// process may open (its soft limit, first raised to the hard limit), at most 16,384.
pub(crate) fn default_max_connections() -> usize {
    (fd_limit().saturating_sub(64) / 4 * 3).clamp(16, 16_384) as usize
}

/// The soft limit on open files, raised to the hard limit when it is lower (as Go's runtime
/// does): servers need far more than the 1,024 many systems start a process with.
#[cfg(unix)]
fn fd_limit() -> u64 {
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        let mut limit = std::mem::zeroed::<libc::rlimit>();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit.rlim_cur = limit.rlim_max;
            }
        }
        limit.rlim_cur as u64
    }
}

#[cfg(not(unix))]
fn fd_limit() -> u64 {
    8192
}

#[cfg(test)]
mod tests;
