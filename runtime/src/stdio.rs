//! The process's standard streams for serving, with a stdout guard: protocol frames go to a
//! private duplicate of the original stdout, and the process's stdout is pointed at stderr,
//! so a tool that calls `println!` cannot corrupt the stream.
//!
//! On Linux and macOS this uses `dup`/`dup2`. Elsewhere there is no guard: frames go to
//! stdout as they are, and a tool must not print to it.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::AsyncWrite;

/// The input half: stdin.
pub(crate) type Input = rmcp::transport::StdioReader;

/// The output half: the protocol's own descriptor.
pub(crate) struct Output(Inner);

enum Inner {
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Sender),
    #[cfg(unix)]
    File(tokio::fs::File),
    #[cfg(not(unix))]
    Stdout(rmcp::transport::StdioWriter),
}

/// Takes over the standard streams for serving. Call once, before tools run.
pub(crate) fn take() -> std::io::Result<(Input, Output)> {
    let (input, _unguarded) = rmcp::transport::stdio_pipes();
    #[cfg(unix)]
    {
        drop(_unguarded);
        Ok((input, Output(guard()?)))
    }
    #[cfg(not(unix))]
    {
        Ok((input, Output(Inner::Stdout(_unguarded))))
    }
}

#[cfg(unix)]
fn guard() -> std::io::Result<Inner> {
    use std::os::fd::{FromRawFd, OwnedFd};

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
    if let Some(pipe) = nonblocking_pipe(&protocol) {
        return Ok(Inner::Pipe(pipe));
    }
    Ok(Inner::File(tokio::fs::File::from_std(std::fs::File::from(
        protocol,
    ))))
}

/// A FIFO reopened on its own open file description (Linux), so that `O_NONBLOCK` does not
/// leak into stderr when both share one description (`2>&1`).
#[cfg(unix)]
fn nonblocking_pipe(fd: &std::os::fd::OwnedFd) -> Option<tokio::net::unix::pipe::Sender> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};

    if !cfg!(target_os = "linux") {
        return None;
    }
    let path = format!("/proc/self/fd/{}", fd.as_raw_fd());
    if !std::fs::metadata(&path).ok()?.file_type().is_fifo() {
        return None;
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&path)
        .ok()?;
    tokio::net::unix::pipe::Sender::from_file(file).ok()
}

impl AsyncWrite for Output {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match &mut self.0 {
            #[cfg(unix)]
            Inner::Pipe(pipe) => Pin::new(pipe).poll_write(cx, buf),
            #[cfg(unix)]
            Inner::File(file) => Pin::new(file).poll_write(cx, buf),
            #[cfg(not(unix))]
            Inner::Stdout(out) => Pin::new(out).poll_write(cx, buf),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.0 {
            #[cfg(unix)]
            Inner::Pipe(pipe) => Pin::new(pipe).poll_flush(cx),
            #[cfg(unix)]
            Inner::File(file) => Pin::new(file).poll_flush(cx),
            #[cfg(not(unix))]
            Inner::Stdout(out) => Pin::new(out).poll_flush(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.0 {
            #[cfg(unix)]
            Inner::Pipe(pipe) => Pin::new(pipe).poll_shutdown(cx),
            #[cfg(unix)]
            Inner::File(file) => Pin::new(file).poll_shutdown(cx),
            #[cfg(not(unix))]
            Inner::Stdout(out) => Pin::new(out).poll_shutdown(cx),
        }
    }
}
