//! The writing half of a session, shared by rmcp's responses, the transport's own replies and
//! the tools' notifications.
//!
//! Frames are queued in order (a notification sent before a response is written before it).
//! Whoever finds the writer free writes everything queued, in one write: an idle server
//! answers without a hand-off to another task, a busy one batches many frames per write.
//! The reading side can also queue frames and write them without waiting ([`Outbox::queue`],
//! [`Outbox::write_now`]), so that the answers to a burst of requests leave in one write.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use tokio::io::AsyncWrite;

/// Past this many queued bytes a sender waits for the writer (a client that does not read
/// slows the server down instead of growing its memory).
pub(crate) const BACKLOG: usize = 16 << 20;

/// The output and the batch being written to it.
struct Writer {
    out: Pin<Box<dyn AsyncWrite + Send>>,
    /// The batch being written; `batch[written..]` has not been taken by the output yet.
    /// Progress is recorded after every write, so a cancelled writer loses nothing.
    batch: Vec<u8>,
    written: usize,
}

struct Inner {
    queue: Mutex<Vec<u8>>,
    writer: tokio::sync::Mutex<Writer>,
    failed: AtomicBool,
}

/// A handle on the session's writer; cheap to clone.
#[derive(Clone)]
pub(crate) struct Outbox(Arc<Inner>);

fn broken() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "writing to the client failed")
}

impl Writer {
    /// Writes the batch, then everything queued, until the queue is empty or the output
    /// cannot take more now (`Pending`).
    fn poll_drain(&mut self, cx: &mut Context<'_>, queue: &Mutex<Vec<u8>>) -> Poll<io::Result<()>> {
        loop {
            if self.written == self.batch.len() {
                self.batch.clear();
                self.written = 0;
                std::mem::swap(&mut self.batch, &mut *lock(queue));
                if self.batch.is_empty() {
                    return self.out.as_mut().poll_flush(cx);
                }
            }
            match self
                .out
                .as_mut()
                .poll_write(cx, &self.batch[self.written..])
            {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => self.written += n,
                Poll::Ready(Err(err)) => return Poll::Ready(Err(err)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

fn lock(queue: &Mutex<Vec<u8>>) -> std::sync::MutexGuard<'_, Vec<u8>> {
    queue.lock().unwrap_or_else(|e| e.into_inner())
}

impl Outbox {
    pub(crate) fn new<W: AsyncWrite + Send + 'static>(write: W) -> Self {
        Outbox(Arc::new(Inner {
            queue: Mutex::new(Vec::with_capacity(16 * 1024)),
            writer: tokio::sync::Mutex::new(Writer {
                out: Box::pin(write),
                batch: Vec::new(),
                written: 0,
            }),
            failed: AtomicBool::new(false),
        }))
    }

    /// Sends one frame, serialized here.
    pub(crate) async fn send<T: serde::Serialize>(&self, frame: &T) -> io::Result<()> {
        self.queue(frame)?;
        self.write_queued().await
    }

    /// Queues one frame, serialized straight into the queue; nothing is written yet.
    pub(crate) fn queue<T: serde::Serialize>(&self, frame: &T) -> io::Result<()> {
        self.check()?;
        let mut queue = lock(&self.0.queue);
        let start = queue.len();
        if let Err(err) = serde_json::to_writer(&mut *queue, frame) {
            queue.truncate(start);
            return Err(io::Error::other(err));
        }
        queue.push(b'\n');
        Ok(())
    }

    /// Queues pieces that together make one frame ending with its newline.
    pub(crate) fn queue_pieces(&self, pieces: &[&[u8]]) -> io::Result<()> {
        self.check()?;
        let mut queue = lock(&self.0.queue);
        for piece in pieces {
            queue.extend_from_slice(piece);
        }
        Ok(())
    }

    /// How many bytes wait in the queue.
    pub(crate) fn queued(&self) -> usize {
        lock(&self.0.queue).len()
    }

    fn check(&self) -> io::Result<()> {
        if self.0.failed.load(Ordering::Acquire) {
            Err(broken())
        } else {
            Ok(())
        }
    }

    /// Writes what is queued, unless the writer is busy (its holder then writes it too).
    /// Past [`BACKLOG`] queued bytes, waits for the writer instead.
    async fn write_queued(&self) -> io::Result<()> {
        if self.queued() > BACKLOG {
            return self.flush().await;
        }
        loop {
            let Ok(writer) = self.0.writer.try_lock() else {
                return Ok(());
            };
            self.drain(writer).await?;
            // A sender that found the writer busy after the last look left its frame queued.
            if lock(&self.0.queue).is_empty() {
                return Ok(());
            }
        }
    }

    /// Writes what is queued without waiting: as much as the output takes now. What it does
    /// not take is written by a task. Does nothing when the writer is busy (its holder
    /// writes the queue too).
    pub(crate) fn write_now(&self) {
        loop {
            if lock(&self.0.queue).is_empty() || self.check().is_err() {
                return;
            }
            let Ok(mut writer) = self.0.writer.try_lock() else {
                return;
            };
            let mut cx = Context::from_waker(Waker::noop());
            match writer.poll_drain(&mut cx, &self.0.queue) {
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(err)) => {
                    self.fail(&err);
                    return;
                }
                Poll::Pending => {
                    drop(writer);
                    let outbox = self.clone();
                    tokio::spawn(async move {
                        let _ = outbox.flush().await;
                    });
                    return;
                }
            }
        }
    }

    /// Waits until everything queued so far is written and flushed.
    pub(crate) async fn flush(&self) -> io::Result<()> {
        let writer = self.0.writer.lock().await;
        self.drain(writer).await
    }

    async fn drain(&self, mut writer: tokio::sync::MutexGuard<'_, Writer>) -> io::Result<()> {
        self.check()?;
        let drained = std::future::poll_fn(|cx| writer.poll_drain(cx, &self.0.queue)).await;
        drained.map_err(|err| {
            self.fail(&err);
            broken()
        })
    }

    fn fail(&self, err: &io::Error) {
        tracing::debug!(%err, "writing to the client failed");
        self.0.failed.store(true, Ordering::Release);
    }
}
