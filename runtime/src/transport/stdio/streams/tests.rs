//! The stdin reader's polling window: when it polls, when it sleeps.

use std::future::Future;
use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;

use super::PipeInput;

/// A pipe: its read end as the server's input polling for `spin`, its write end blocking.
fn pipe(spin: Duration) -> (PipeInput, std::fs::File) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fresh descriptors, owned below.
    assert_eq!(
        unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK) },
        0
    );
    // SAFETY: fresh descriptors nobody else owns.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: clears O_NONBLOCK on the write end, which this test owns.
    unsafe { libc::fcntl(fds[1], libc::F_SETFL, 0) };
    let pipe = tokio::net::unix::pipe::Receiver::from_owned_fd(read).unwrap();
    let input = PipeInput {
        pipe,
        spin,
        spinning: true,
        waiting_since: None,
    };
    (input, std::fs::File::from(write))
}

fn poll_once<F: Future>(future: F) -> Poll<F::Output> {
    pin!(future).poll(&mut Context::from_waker(Waker::noop()))
}

fn spinning(input: &PipeInput) -> bool {
    input.spinning
}

#[tokio::test]
async fn a_request_written_within_the_window_is_read_without_sleeping() {
    let (mut input, mut tx) = pipe(Duration::from_secs(5));
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        tx.write_all(b"{}\n").unwrap();
        tx
    });
    let mut buf = [0u8; 16];
    // One poll, with a waker that does nothing: the read completes by polling the pipe.
    let read = poll_once(input.read(&mut buf));
    assert!(matches!(read, Poll::Ready(Ok(3))), "{read:?}");
    assert_eq!(&buf[..3], b"{}\n");
    assert!(spinning(&input));
    drop(writer.join());
}

#[tokio::test]
async fn polling_stops_after_an_idle_window_and_resumes_when_input_comes_quickly() {
    let window = Duration::from_millis(300);
    let (mut input, mut tx) = pipe(window);
    let mut buf = [0u8; 16];

    let started = Instant::now();
    assert!(
        poll_once(input.read(&mut buf)).is_pending(),
        "nothing was written"
    );
    assert!(
        started.elapsed() >= window,
        "it polled for the whole window first"
    );
    assert!(!spinning(&input), "an idle window turns polling off");

    // That input came after more than a window: polling stays off.
    tx.write_all(b"a\n").unwrap();
    assert_eq!(input.read(&mut buf).await.unwrap(), 2);
    assert!(!spinning(&input));

    // Input that comes within a window of the reader starting to wait turns it back on.
    assert!(poll_once(input.read(&mut buf)).is_pending());
    tx.write_all(b"b\n").unwrap();
    assert_eq!(input.read(&mut buf).await.unwrap(), 2);
    assert!(spinning(&input));
}

#[tokio::test]
async fn a_zero_window_never_polls() {
    let (mut input, mut tx) = pipe(Duration::ZERO);
    let mut buf = [0u8; 16];
    let started = Instant::now();
    assert!(poll_once(input.read(&mut buf)).is_pending());
    assert!(started.elapsed() < Duration::from_millis(50));
    tx.write_all(b"a\n").unwrap();
    assert_eq!(input.read(&mut buf).await.unwrap(), 2);
    assert!(
        !spinning(&input),
        "input however quick does not turn polling on"
    );
}
