//! The writing half of a session, shared by rmcp's responses, the transport's own replies and
//! the tools' notifications.
//!
//! Frames are queued in order (a notification sent before a response is written before it).
//! Whoever finds the writer free writes everything queued, in one (vectored) write: an idle
//! server answers without a hand-off to another task, a busy one batches many frames per
//! write. The reading side can also queue frames and write them without waiting
//! ([`Outbox::queue`], [`Outbox::write_now`]), so that the answers to a burst of requests
//! leave together. A large shared body (the cached `tools/list` result) is queued by
//! reference, not copied.
//!
//! The backlog is every byte queued or taken by the writer and not yet written. Past
//! [`BACKLOG`], a sender waits before it queues its frame ([`Outbox::room`]), and so do the
//! reader and the calls that have not started (through the session's channel): a client
//! that stops reading holds the server to about that much, plus what the calls already
//! running answer.

use std::collections::VecDeque;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use tokio::io::AsyncWrite;
use tokio::sync::Notify;

/// Past this many bytes waiting for the client, a sender waits before it queues (a client
/// that does not read slows the server down instead of growing its memory).
pub(crate) const BACKLOG: usize = 16 << 20;

/// How many pieces one vectored write takes at most.
const SLICES: usize = 16;

/// A run of queued bytes: frames serialized into a buffer, or a shared body.
enum Chunk {
    Owned(Vec<u8>),
    Shared(Arc<String>),
}

impl Chunk {
    fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Owned(bytes) => bytes,
            Chunk::Shared(text) => text.as_bytes(),
        }
    }
}

/// Bytes waiting for the writer, in order.
#[derive(Default)]
struct Queue {
    chunks: VecDeque<Chunk>,
    len: usize,
}

impl Queue {
    /// The buffer new frames are serialized into: the last chunk, when it is a buffer.
    fn tail(&mut self) -> &mut Vec<u8> {
        if !matches!(self.chunks.back(), Some(Chunk::Owned(_))) {
            self.chunks
                .push_back(Chunk::Owned(Vec::with_capacity(16 * 1024)));
        }
        match self.chunks.back_mut() {
            Some(Chunk::Owned(bytes)) => bytes,
            _ => unreachable!("an owned chunk was just pushed"),
        }
    }
}

/// The output and the batch being written to it.
struct Writer {
    out: Pin<Box<dyn AsyncWrite + Send>>,
    /// The batch being written; the first chunk's first `written` bytes are out already.
    /// Progress is recorded after every write, so a cancelled writer loses nothing.
    batch: VecDeque<Chunk>,
    written: usize,
}

struct Inner {
    queue: Mutex<Queue>,
    /// Bytes queued or in the writer's batch, not yet written.
    backlog: AtomicUsize,
    /// Told when the backlog falls to [`BACKLOG`] or below, and when writing fails.
    room: Notify,
    writer: tokio::sync::Mutex<Writer>,
    failed: AtomicBool,
    /// A task is on its way to write what `write_now` could not.
    flush_scheduled: AtomicBool,
    /// The runtime flush tasks run on: frames may be queued from any thread.
    runtime: tokio::runtime::Handle,
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
    fn poll_drain(&mut self, cx: &mut Context<'_>, inner: &Inner) -> Poll<io::Result<()>> {
        loop {
            if self.batch.is_empty() {
                let mut queue = lock(&inner.queue);
                std::mem::swap(&mut self.batch, &mut queue.chunks);
                queue.len = 0;
                drop(queue);
                self.written = 0;
                if self.batch.is_empty() {
                    return self.out.as_mut().poll_flush(cx);
                }
            }
            let mut slices = [IoSlice::new(&[]); SLICES];
            let mut count = 0;
            for (i, chunk) in self.batch.iter().take(SLICES).enumerate() {
                let start = if i == 0 { self.written } else { 0 };
                slices[i] = IoSlice::new(&chunk.bytes()[start..]);
                count = i + 1;
            }
            match self.out.as_mut().poll_write_vectored(cx, &slices[..count]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => {
                    self.advance(n);
                    inner.written(n);
                }
                Poll::Ready(Err(err)) => return Poll::Ready(Err(err)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// Marks `n` more bytes of the batch as written.
    fn advance(&mut self, mut n: usize) {
        while let Some(front) = self.batch.front() {
            let rest = front.bytes().len() - self.written;
            if n < rest {
                self.written += n;
                return;
            }
            n -= rest;
            self.batch.pop_front();
            self.written = 0;
        }
    }
}

impl Inner {
    fn queued(&self, n: usize) {
        self.backlog.fetch_add(n, Ordering::AcqRel);
    }

    fn written(&self, n: usize) {
        let before = self.backlog.fetch_sub(n, Ordering::AcqRel);
        if before > BACKLOG && before - n <= BACKLOG {
            self.room.notify_waiters();
        }
    }
}

fn lock(queue: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(|e| e.into_inner())
}

impl Outbox {
    pub(crate) fn new<W: AsyncWrite + Send + 'static>(write: W) -> Self {
        Outbox(Arc::new(Inner {
            queue: Mutex::new(Queue::default()),
            backlog: AtomicUsize::new(0),
            room: Notify::new(),
            writer: tokio::sync::Mutex::new(Writer {
                out: Box::pin(write),
                batch: VecDeque::new(),
                written: 0,
            }),
            failed: AtomicBool::new(false),
            flush_scheduled: AtomicBool::new(false),
            runtime: tokio::runtime::Handle::current(),
        }))
    }

    /// Sends one frame, serialized here once the backlog has room for it (see
    /// [`Outbox::room`]).
    pub(crate) async fn send<T: serde::Serialize>(&self, frame: &T) -> io::Result<()> {
        self.room().await?;
        self.queue(frame)?;
        self.write_queued().await
    }

    /// Waits until the backlog is at most [`BACKLOG`] bytes: at once when it is. Cancel-safe.
    pub(crate) async fn room(&self) -> io::Result<()> {
        loop {
            let notified = self.0.room.notified();
            let mut notified = std::pin::pin!(notified);
            // Registered before the look: a fall below the limit after it is not missed.
            notified.as_mut().enable();
            self.check()?;
            if !self.backed_up() {
                return Ok(());
            }
            // Someone writes: the writer's holder, or the task this starts.
            self.write_now();
            notified.await;
        }
    }

    /// Whether the backlog is over [`BACKLOG`]: the client is not reading what it was sent.
    pub(crate) fn backed_up(&self) -> bool {
        self.backlog() > BACKLOG
    }

    /// How many bytes wait for the client: queued, or taken by the writer and not written.
    pub(crate) fn backlog(&self) -> usize {
        self.0.backlog.load(Ordering::Acquire)
    }

    /// Queues one frame, serialized straight into the queue; nothing is written yet.
    pub(crate) fn queue<T: serde::Serialize>(&self, frame: &T) -> io::Result<()> {
        self.check()?;
        let mut queue = lock(&self.0.queue);
        let tail = queue.tail();
        let start = tail.len();
        if let Err(err) = serde_json::to_writer(&mut *tail, frame) {
            tail.truncate(start);
            if tail.is_empty() {
                queue.chunks.pop_back(); // an empty chunk would read as a write of zero bytes
            }
            return Err(io::Error::other(err));
        }
        tail.push(b'\n');
        let added = tail.len() - start;
        queue.len += added;
        self.0.queued(added);
        Ok(())
    }

    /// Queues one frame made of `prefix`, a shared body (not copied) and `suffix`, which
    /// ends with the frame's newline; nothing is written yet.
    pub(crate) fn queue_shared(
        &self,
        prefix: &[u8],
        body: Arc<String>,
        suffix: &[u8],
    ) -> io::Result<()> {
        self.check()?;
        let mut queue = lock(&self.0.queue);
        queue.tail().extend_from_slice(prefix);
        let added = prefix.len() + body.len() + suffix.len();
        queue.chunks.push_back(Chunk::Shared(body));
        queue.tail().extend_from_slice(suffix);
        queue.len += added;
        self.0.queued(added);
        Ok(())
    }

    /// How many bytes wait in the queue.
    pub(crate) fn queued(&self) -> usize {
        lock(&self.0.queue).len
    }

    /// Whether writing to the client failed: nothing more can reach it.
    pub(crate) fn failed(&self) -> bool {
        self.0.failed.load(Ordering::Acquire)
    }

    fn check(&self) -> io::Result<()> {
        if self.0.failed.load(Ordering::Acquire) {
            Err(broken())
        } else {
            Ok(())
        }
    }

    /// Writes what is queued, unless the writer is busy (its holder then writes it too).
    async fn write_queued(&self) -> io::Result<()> {
        loop {
            let Ok(writer) = self.0.writer.try_lock() else {
                return Ok(());
            };
            self.drain(writer).await?;
            // A sender that found the writer busy after the last look left its frame queued.
            if self.queued() == 0 {
                return Ok(());
            }
        }
    }

    /// Writes what is queued without waiting: as much as the output takes now. What it does
    /// not take is written by a task. Does nothing when the writer is busy (its holder
    /// writes the queue too).
    pub(crate) fn write_now(&self) {
        loop {
            if self.check().is_err() {
                return;
            }
            let Ok(mut writer) = self.0.writer.try_lock() else {
                return; // its holder writes the queue, and looks again once it lets go
            };
            // A batch a cancelled writer left half-written counts as queued.
            let drained = if writer.batch.is_empty() && self.queued() == 0 {
                Poll::Ready(Ok(()))
            } else {
                let mut cx = Context::from_waker(Waker::noop());
                writer.poll_drain(&mut cx, &self.0)
            };
            #[cfg(test)]
            tests::while_held();
            drop(writer);
            match drained {
                // A sender that found the writer held meanwhile left its frame queued: look
                // again now that it is free.
                Poll::Ready(Ok(())) if self.queued() == 0 => return,
                Poll::Ready(Ok(())) => {}
                Poll::Ready(Err(err)) => {
                    self.fail(&err);
                    return;
                }
                Poll::Pending => {
                    self.schedule_flush();
                    return;
                }
            }
        }
    }

    /// Has what is queued written soon, by a task (one at a time), from any thread.
    pub(crate) fn write_soon(&self) {
        if self.queued() > 0 && self.check().is_ok() {
            self.schedule_flush();
        }
    }

    /// Starts a task that writes everything queued, unless one is already on its way.
    fn schedule_flush(&self) {
        if self.0.flush_scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        let outbox = self.clone();
        self.0.runtime.spawn(async move {
            // Cleared first: what is queued after this point is the task's to write too.
            outbox.0.flush_scheduled.store(false, Ordering::Release);
            let _ = outbox.flush().await;
        });
    }

    /// Waits until everything queued so far is written and flushed. Cancel-safe: a
    /// half-written batch stays with the writer, for the next holder.
    pub(crate) async fn flush(&self) -> io::Result<()> {
        loop {
            let writer = self.0.writer.lock().await;
            self.drain(writer).await?;
            // A sender that found the writer busy after the last look left its frame queued.
            if self.queued() == 0 {
                return Ok(());
            }
        }
    }

    async fn drain(&self, mut writer: tokio::sync::MutexGuard<'_, Writer>) -> io::Result<()> {
        self.check()?;
        let drained = std::future::poll_fn(|cx| writer.poll_drain(cx, &self.0)).await;
        drained.map_err(|err| {
            self.fail(&err);
            broken()
        })
    }

    fn fail(&self, err: &io::Error) {
        tracing::debug!(%err, "writing to the client failed");
        self.0.failed.store(true, Ordering::Release);
        self.0.room.notify_waiters(); // whoever waits for room learns it
    }
}

#[cfg(test)]
mod tests;
