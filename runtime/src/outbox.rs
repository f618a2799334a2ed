//! The writing half of a session, shared by rmcp's responses, the transport's own replies and
//! the tools' notifications.
//!
//! Frames are queued in order (a notification sent before a response is written before it).
//! Whoever finds the writer free writes everything queued, in one write: an idle server
//! answers without a hand-off to another task, a busy one batches many frames per write.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncWrite, AsyncWriteExt};

/// Past this many queued bytes a sender waits for the writer (a client that does not read
/// slows the server down instead of growing its memory).
const BACKLOG: usize = 16 << 20;

struct Inner {
    queue: Mutex<Vec<u8>>,
    writer: tokio::sync::Mutex<Pin<Box<dyn AsyncWrite + Send>>>,
    failed: AtomicBool,
}

/// A handle on the session's writer; cheap to clone.
#[derive(Clone)]
pub(crate) struct Outbox(Arc<Inner>);

fn broken() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "writing to the client failed")
}

impl Outbox {
    pub(crate) fn new<W: AsyncWrite + Send + 'static>(write: W) -> Self {
        Outbox(Arc::new(Inner {
            queue: Mutex::new(Vec::with_capacity(64 * 1024)),
            writer: tokio::sync::Mutex::new(Box::pin(write)),
            failed: AtomicBool::new(false),
        }))
    }

    /// Sends one frame, serialized here.
    pub(crate) async fn send<T: serde::Serialize>(&self, frame: &T) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(frame).map_err(io::Error::other)?;
        bytes.push(b'\n');
        self.send_line(bytes).await
    }

    /// Sends one frame that is already serialized and ends with its newline.
    pub(crate) async fn send_line(&self, line: Vec<u8>) -> io::Result<()> {
        if self.0.failed.load(Ordering::Acquire) {
            return Err(broken());
        }
        let backlog = {
            let mut queue = self.queue();
            queue.extend_from_slice(&line);
            queue.len()
        };
        if backlog > BACKLOG {
            let writer = self.0.writer.lock().await;
            return self.write_queued(writer).await;
        }
        loop {
            // Busy: the writer's holder writes this frame too (it looks again after unlocking).
            let Ok(writer) = self.0.writer.try_lock() else {
                return Ok(());
            };
            self.write_queued(writer).await?;
            if self.queue().is_empty() {
                return Ok(());
            }
        }
    }

    /// Waits until everything queued so far is written and flushed.
    pub(crate) async fn flush(&self) -> io::Result<()> {
        let writer = self.0.writer.lock().await;
        self.write_queued(writer).await
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.0.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes what is queued, batch after batch, until the queue is empty.
    async fn write_queued(
        &self,
        mut writer: tokio::sync::MutexGuard<'_, Pin<Box<dyn AsyncWrite + Send>>>,
    ) -> io::Result<()> {
        let mut batch = Vec::new();
        loop {
            std::mem::swap(&mut batch, &mut *self.queue());
            if batch.is_empty() {
                return Ok(());
            }
            let written = async {
                writer.write_all(&batch).await?;
                writer.flush().await
            };
            if let Err(err) = written.await {
                tracing::debug!(%err, "writing to the client failed");
                self.0.failed.store(true, Ordering::Release);
                return Err(broken());
            }
            batch.clear();
        }
    }
}
