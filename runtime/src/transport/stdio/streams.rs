//! The process's standard streams for serving, with a stdout guard: protocol frames go to a
//! private duplicate of the original stdout, and the process's stdout is pointed at stderr,
//! so a tool that calls `println!` cannot corrupt the stream.
//!
//! On Linux and macOS this uses `dup`/`dup2`. Elsewhere there is no guard: frames go to
//! stdout as they are, and a tool must not print to it.
//!
//! On Linux, when stdin and stdout are pipes (as for every MCP client), both are reopened as
//! non-blocking pipes driven by the reactor, so that reading a request or writing a
//! response never hands off to a blocking thread.

#[cfg(unix)]
use std::pin::Pin;
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

/// Takes over the standard streams for serving. Call once, before tools run. `spin`: how
/// long the reader polls stdin for more input before it sleeps (see `Server::busy_poll`).
pub(crate) fn take(spin: Duration) -> std::io::Result<(Input, Output)> {
    let (stdin, _unguarded) = rmcp::transport::stdio_pipes();
    #[cfg(unix)]
    {
        drop(_unguarded);
        let pipe = nonblocking_pipe(libc::STDIN_FILENO, Direction::Read)
            .and_then(|file| tokio::net::unix::pipe::Receiver::from_file(file).ok());
        let input: Input = match pipe {
            Some(pipe) => Box::new(PipeInput {
                pipe,
                spin,
                spinning: !spin.is_zero(),
                waiting_since: None,
            }),
            None => Box::new(stdin),
        };
        Ok((input, guard()?))
    }
    #[cfg(not(unix))]
    {
        let _ = spin;
        let (input, output): (Input, Output) = (Box::new(stdin), Box::new(_unguarded));
        Ok((input, output))
    }
}

#[cfg(unix)]
fn guard() -> std::io::Result<Output> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    // SAFETY: dup and dup2 on the standard descriptors; the new descriptor is owned below.
    let protocol = unsafe { libc::dup(libc::STDOUT_FILENO) };
    if protocol < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `protocol` is a fresh descriptor nobody else owns.
    let protocol = unsafe { OwnedFd::from_raw_fd(protocol) };
    // SAFETY: points descriptor 1 at what descriptor 2 points at.
    if unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if let Some(file) = nonblocking_pipe(protocol.as_raw_fd(), Direction::Write) {
        enlarge_pipe(&file);
        if let Ok(pipe) = tokio::net::unix::pipe::Sender::from_file(file) {
            return Ok(Box::new(pipe));
        }
    }
    Ok(Box::new(tokio::fs::File::from_std(std::fs::File::from(
        protocol,
    ))))
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
fn nonblocking_pipe(fd: std::os::fd::RawFd, direction: Direction) -> Option<std::fs::File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};

    if !cfg!(target_os = "linux") {
        return None;
    }
    let path = format!("/proc/self/fd/{fd}");
    if !std::fs::metadata(&path).ok()?.file_type().is_fifo() {
        return None;
    }
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
