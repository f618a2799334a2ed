//! The writing half of a session, shared by rmcp's responses, the transport's own replies and
//! the tools' notifications. One task owns the writer: frames queue in order (a notification
//! sent before a response is written before it) and every frame that is waiting when the
//! writer is free goes out in one write.

use std::io;
use std::pin::Pin;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

/// Frames queued beyond this wait for the writer (backpressure on a slow reader).
const QUEUE: usize = 1024;
/// At most this much is gathered into one write.
const BATCH: usize = 1 << 20;

enum Item {
    Frame(Vec<u8>),
    Flush(oneshot::Sender<io::Result<()>>),
}

/// A handle on the session's writer; cheap to clone.
#[derive(Clone)]
pub(crate) struct Outbox(mpsc::Sender<Item>);

impl Outbox {
    /// Starts the writer task. Needs a tokio runtime.
    pub(crate) fn new<W: AsyncWrite + Send + 'static>(write: W) -> Self {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(run(Box::pin(write), rx));
        Outbox(tx)
    }

    /// Queues one frame, serialized here.
    pub(crate) async fn send<T: serde::Serialize>(&self, frame: &T) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(frame).map_err(io::Error::other)?;
        bytes.push(b'\n');
        self.send_line(bytes).await
    }

    /// Queues one frame that is already serialized and ends with its newline.
    pub(crate) async fn send_line(&self, line: Vec<u8>) -> io::Result<()> {
        self.0
            .send(Item::Frame(line))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the writer has stopped"))
    }

    /// Waits until everything queued so far is written and flushed.
    pub(crate) async fn flush(&self) -> io::Result<()> {
        let (done, wait) = oneshot::channel();
        if self.0.send(Item::Flush(done)).await.is_err() {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the writer has stopped",
            ));
        }
        wait.await.unwrap_or_else(|_| {
            Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the writer has stopped",
            ))
        })
    }
}

async fn run(mut writer: Pin<Box<dyn AsyncWrite + Send>>, mut queue: mpsc::Receiver<Item>) {
    let mut batch = Vec::with_capacity(64 * 1024);
    let mut failed: Option<io::ErrorKind> = None;
    while let Some(first) = queue.recv().await {
        let mut flushes = Vec::new();
        let mut take = |item: Item, batch: &mut Vec<u8>| match item {
            Item::Frame(bytes) => batch.extend_from_slice(&bytes),
            Item::Flush(done) => flushes.push(done),
        };
        take(first, &mut batch);
        while batch.len() < BATCH {
            match queue.try_recv() {
                Ok(item) => take(item, &mut batch),
                Err(_) => break,
            }
        }
        if failed.is_none() && !batch.is_empty() {
            let written = async {
                writer.write_all(&batch).await?;
                writer.flush().await
            };
            if let Err(err) = written.await {
                tracing::debug!(%err, "writing to the client failed");
                failed = Some(err.kind());
            }
        }
        batch.clear();
        for done in flushes {
            let _ = done.send(match failed {
                None => Ok(()),
                Some(kind) => Err(io::Error::new(kind, "writing to the client failed")),
            });
        }
    }
    let _ = writer.flush().await;
}
