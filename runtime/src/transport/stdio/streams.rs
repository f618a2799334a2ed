//! The process's standard streams for serving, with a stdout guard: protocol frames go to a
//! private duplicate of the original stdout, and the process's stdout is pointed at stderr,
//! so a tool that calls `println!` cannot corrupt the stream.
//!
//! stdin is guarded alike: requests are read from a private duplicate, and fd 0 reads
//! `/dev/null`, so a child process a tool starts cannot swallow them. Both duplicates are
//! close-on-exec.
//!
//! On Linux and macOS this uses `fcntl`/`dup2`. Elsewhere there is no guard: frames go to
//! stdout as they are, and a tool must not print to it.
//!
//! When stdin and stdout are pipes (every MCP client on Linux) or sockets (Node-based hosts),
//! both are driven by the reactor, so that reading a request or writing a response never
//! waits for a blocking thread.

use std::io;
#[cfg(unix)]
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
#[cfg(unix)]
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(unix)]
use std::task::{Context, Poll};
use std::time::Duration;
#[cfg(unix)]
use std::time::Instant;

use super::{Input, Output};

/// stdin as a non-blocking pipe, polled for up to `spin` before the reader sleeps.
#[cfg(unix)]
pub(crate) struct PipeInput {
    pipe: tokio::net::unix::pipe::Receiver,
    spin: Duration,
    /// Whether polling is likely to pay off: whether the last input came within a window of
    /// the reader starting to wait for it.
    spinning: bool,
    /// When the reader started waiting for the input it has not got yet.
    waiting_since: Option<Instant>,
}

/// Whether the standard streams were taken already: a second server in one process would
/// find fd 1 pointed at stderr, and send its frames there.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// Takes over the standard streams for serving, once per process. `spin`: how long the
/// reader polls stdin for more input before it sleeps (see `Server::busy_poll`).
pub(crate) fn take(spin: Duration) -> io::Result<(Input, Output)> {
    if TAKEN.swap(true, Ordering::AcqRel) {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "stdio is already being served by this process: serve it once, from main",
        ));
    }
    #[cfg(unix)]
    {
        let (input, output) = guard()?;
        Ok((reader(input, spin), writer(output)))
    }
    #[cfg(not(unix))]
    {
        let _ = spin;
        let (stdin, stdout) = rmcp::transport::stdio_pipes();
        let (input, output): (Input, Output) = (Box::new(stdin), Box::new(stdout));
        Ok((input, output))
    }
}

/// Moves the protocol to private close-on-exec duplicates of fds 0 and 1, then points fd 0
/// at `/dev/null` and fd 1 at stderr: a child process a tool starts can neither read the
/// client's requests nor keep the client's streams open, and `println!` cannot corrupt the
/// stream.
#[cfg(unix)]
fn guard() -> io::Result<(OwnedFd, OwnedFd)> {
    let input = dup_cloexec(libc::STDIN_FILENO)?;
    let output = dup_cloexec(libc::STDOUT_FILENO)?;
    let null = std::fs::File::open("/dev/null")?;
    dup2(null.as_raw_fd(), libc::STDIN_FILENO)?;
    dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO)?;
    Ok((input, output))
}

#[cfg(unix)]
fn dup_cloexec(fd: RawFd) -> io::Result<OwnedFd> {
    // SAFETY: duplicates a standard descriptor; the new one is owned below.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if new < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `new` is a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

#[cfg(unix)]
fn dup2(from: RawFd, to: RawFd) -> io::Result<()> {
    // SAFETY: points descriptor `to` (a standard one) at what `from` points at.
    if unsafe { libc::dup2(from, to) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// What a standard stream is, which decides how it is driven.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Fifo,
    Socket,
    Other,
}

#[cfg(unix)]
fn kind(fd: &OwnedFd) -> Kind {
    use std::os::unix::fs::FileTypeExt;

    // SAFETY: borrowed for `metadata` only; ManuallyDrop keeps it from being closed.
    let file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd.as_raw_fd()) });
    match file.metadata().map(|m| m.file_type()) {
        Ok(t) if t.is_fifo() => Kind::Fifo,
        Ok(t) if t.is_socket() => Kind::Socket,
        _ => Kind::Other,
    }
}

/// The protocol's input: a pipe or a socket driven by the reactor (Node-based hosts give a
/// socket), anything else (a file, a terminal) read on tokio's blocking threads, which tools
/// never occupy (see `server/call/pool.rs`).
#[cfg(unix)]
fn reader(fd: OwnedFd, spin: Duration) -> Input {
    if kind(&fd) == Kind::Fifo
        && let Some(pipe) = nonblocking_pipe(fd.as_raw_fd(), Direction::Read)
            .and_then(|file| tokio::net::unix::pipe::Receiver::from_file(file).ok())
    {
        return Box::new(PipeInput {
            pipe,
            spin,
            spinning: !spin.is_zero(),
            waiting_since: None,
        });
    }
    match not_a_pipe(fd) {
        NotAPipe::Socket(stream) => Box::new(stream),
        NotAPipe::Other(file) => Box::new(file),
    }
}

/// The protocol's output, driven like the input.
#[cfg(unix)]
fn writer(fd: OwnedFd) -> Output {
    if kind(&fd) == Kind::Fifo
        && let Some(file) = nonblocking_pipe(fd.as_raw_fd(), Direction::Write)
    {
        enlarge_pipe(&file);
        if let Ok(pipe) = tokio::net::unix::pipe::Sender::from_file(file) {
            return Box::new(pipe);
        }
    }
    match not_a_pipe(fd) {
        NotAPipe::Socket(stream) => Box::new(stream),
        NotAPipe::Other(file) => Box::new(file),
    }
}

/// A stream that is not a pipe (or a pipe that could not be reopened).
#[cfg(unix)]
enum NotAPipe {
    /// A stream socket, non-blocking and driven by the reactor. `O_NONBLOCK` is set on the
    /// socket's open file description, which every descriptor duplicated from it shares:
    /// fds 0 and 1 were pointed elsewhere, and a socket that stderr shares (`2>&1`) is not
    /// taken this way, so that a tool's writes to stderr never fail with `EAGAIN`.
    Socket(tokio::net::UnixStream),
    /// Anything else, on tokio's blocking threads.
    Other(tokio::fs::File),
}

/// Whether `fd` is the file stderr writes to (same device and inode).
#[cfg(unix)]
fn is_stderr(fd: &OwnedFd) -> bool {
    let stat = |raw: RawFd| {
        let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: fstat fills the buffer it is given when it returns 0.
        (unsafe { libc::fstat(raw, stat.as_mut_ptr()) } == 0).then(|| {
            // SAFETY: fstat returned 0, so it initialized the buffer.
            let stat = unsafe { stat.assume_init() };
            (stat.st_dev, stat.st_ino)
        })
    };
    let ours = stat(fd.as_raw_fd());
    ours.is_some() && ours == stat(libc::STDERR_FILENO)
}

#[cfg(unix)]
fn not_a_pipe(fd: OwnedFd) -> NotAPipe {
    if kind(&fd) == Kind::Socket && !is_stderr(&fd) {
        let socket = std::os::unix::net::UnixStream::from(fd);
        let registered = socket.try_clone().and_then(|copy| {
            copy.set_nonblocking(true)?;
            tokio::net::UnixStream::from_std(copy)
        });
        match registered {
            Ok(stream) => return NotAPipe::Socket(stream),
            Err(err) => {
                tracing::debug!(%err, "a socket is served on blocking threads");
                let _ = socket.set_nonblocking(false);
                return NotAPipe::Other(tokio::fs::File::from_std(OwnedFd::from(socket).into()));
            }
        }
    }
    NotAPipe::Other(tokio::fs::File::from_std(std::fs::File::from(fd)))
}

/// Grows the output pipe (64 KiB by default on Linux) so that a large response, such as
/// `tools/list` with hundreds of tools, goes out in one write instead of several, each
/// waiting for the client to drain the pipe. Best effort: the size allowed to unprivileged
/// processes is capped by `/proc/sys/fs/pipe-max-size` (1 MiB by default).
#[cfg(target_os = "linux")]
fn enlarge_pipe(file: &std::fs::File) {
    use std::os::fd::AsRawFd;

    const SIZES: [libc::c_int; 2] = [1 << 20, 256 << 10];
    // SAFETY: fcntl on a descriptor `file` owns.
    let current = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETPIPE_SZ) };
    for size in SIZES.into_iter().filter(|&size| size > current) {
        // SAFETY: fcntl on a descriptor `file` owns; failure leaves the pipe as it was.
        if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETPIPE_SZ, size) } >= 0 {
            return;
        }
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn enlarge_pipe(_: &std::fs::File) {}

#[cfg(unix)]
#[derive(Clone, Copy)]
enum Direction {
    Read,
    Write,
}

/// A FIFO reopened on its own open file description (Linux), so that `O_NONBLOCK` does not
/// leak to other holders of the original one (stderr under `2>&1`, a parent's stdin).
#[cfg(unix)]
fn nonblocking_pipe(fd: RawFd, direction: Direction) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;

    if !cfg!(target_os = "linux") {
        return None;
    }
    let path = format!("/proc/self/fd/{fd}");
    std::fs::OpenOptions::new()
        .read(matches!(direction, Direction::Read))
        .write(matches!(direction, Direction::Write))
        .custom_flags(libc::O_NONBLOCK)
        .open(&path)
        .ok()
}

#[cfg(unix)]
impl tokio::io::AsyncRead for PipeInput {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        let since = *this.waiting_since.get_or_insert_with(Instant::now);
        let read = if this.spinning && spin_read(&this.pipe, this.spin, buf) {
            Poll::Ready(Ok(()))
        } else {
            Pin::new(&mut this.pipe).poll_read(cx, buf)
        };
        if read.is_ready() {
            this.waiting_since = None;
            this.spinning = since.elapsed() < this.spin;
        } else {
            this.spinning = false;
        }
        read
    }
}

/// Reads from `pipe` straight away, trying again for up to `spin` while it has nothing:
/// a request that arrives in that window is read without the thread going to sleep and
/// being woken. `true` when something was read or the input ended; `false` when the
/// window passed (or reading failed: the reactor's read then reports it).
#[cfg(unix)]
fn spin_read(
    pipe: &tokio::net::unix::pipe::Receiver,
    spin: Duration,
    buf: &mut tokio::io::ReadBuf<'_>,
) -> bool {
    use std::os::fd::AsRawFd;

    let deadline = Instant::now() + spin;
    loop {
        // SAFETY: `read` writes at most `unfilled.len()` bytes into the unfilled part of the
        // buffer, which are then marked initialized and filled.
        let n = unsafe {
            let unfilled = buf.unfilled_mut();
            libc::read(
                pipe.as_raw_fd(),
                unfilled.as_mut_ptr().cast(),
                unfilled.len(),
            )
        };
        if let Ok(n) = usize::try_from(n) {
            // SAFETY: the kernel initialized `n` bytes.
            unsafe { buf.assume_init(n) };
            buf.advance(n);
            return true;
        }
        match std::io::Error::last_os_error().kind() {
            std::io::ErrorKind::Interrupted => continue,
            std::io::ErrorKind::WouldBlock if Instant::now() < deadline => {
                std::hint::spin_loop();
            }
            _ => return false, // nothing yet, or an error: the reactor's read reports it
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests;
