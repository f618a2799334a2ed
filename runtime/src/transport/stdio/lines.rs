//! The newline-delimited JSON-RPC transport toolsmith serves on: rmcp's message types, with
//! the guarantees a stdio server needs.
//!
//! - A line that is not a valid message is answered here (see `transport/message/decode.rs`).
//! - A line longer than the maximum is never buffered: it is scanned for its top-level id
//!   while it is skipped (`transport/message/idscan.rs`), and a request gets `-32600` with that id (`id: null`
//!   when it cannot be read exactly); a notification gets nothing.
//! - Once writing to the client fails, no more requests are read: the session ends.
//! - The end of a session is bounded as a whole by [`DRAIN`].

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::{ErrorData, JsonRpcVersion2_0, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

use super::outbox::Outbox;
use crate::transport::message::{Decoded, FoundId, IdScan, Scanned, decode};

pub(crate) const DEFAULT_MAX_LINE: usize = 4 * 1024 * 1024;

/// How long the end of a session may take, from the end of input (or a failed write) to the
/// last byte written: calls in flight finish or are stopped, answers are flushed.
pub(crate) const DRAIN: Duration = Duration::from_secs(5);

/// Answers queued past this many bytes are written even while more requests are buffered.
const WRITE_CHUNK: usize = 4096;

/// The reading half: boxed, so that the transport (and rmcp's service loop over it) is
/// compiled once, whatever the byte streams.
pub(crate) type Input = Box<dyn AsyncRead + Send + Unpin>;
/// The writing half.
pub(crate) type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// A session layer that sees every line and message before rmcp does, and answers some of
/// them itself (the server's fast path). The transport knows it only through this trait.
pub(crate) trait SessionLayer: Send + Sync {
    /// Offered each complete line before it is parsed: `true` when the line was handled.
    fn try_line(&self, line: &[u8]) -> bool;
    /// Offered each parsed message: what rmcp should get, if anything.
    fn intercept(
        &self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>>;
    /// Sees each frame rmcp sends, before it is written, and may change it (the layer may
    /// give rmcp ids of its own): `false` when it must not be written at all.
    fn outgoing(&self, frame: &mut TxJsonRpcMessage<RoleServer>) -> bool;
    /// At the end of input: lets the work in flight finish until `deadline`, then stops it.
    fn drain(&self, deadline: Instant) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// What one bounded read produced.
enum Line {
    /// A whole line is in `self.line`.
    Complete,
    /// A line over the limit was skipped; what its scan found.
    TooLong(Scanned),
    Eof,
}

/// Newline-delimited JSON-RPC over any byte stream pair.
pub(crate) struct LineTransport {
    reader: BufReader<Input>,
    /// The line being read. Kept across calls: `receive` may be cancelled mid-line.
    line: Vec<u8>,
    /// Skipping the rest of an oversized line, scanning it for its id.
    skipping: Option<IdScan>,
    max_line: usize,
    outbox: Outbox,
    /// The session layer in front of rmcp, when one is attached.
    layer: Option<Arc<dyn SessionLayer>>,
    /// When reading stopped: the end of the session's drain counts from here.
    ended: Option<Instant>,
}

impl LineTransport {
    pub(crate) fn new(read: Input, write: Output, max_line: usize) -> Self {
        LineTransport {
            reader: BufReader::with_capacity(32 * 1024, read),
            line: Vec::new(),
            skipping: None,
            max_line: max_line.max(1),
            outbox: Outbox::new(write),
            layer: None,
            ended: None,
        }
    }

    /// Puts `layer` in front of rmcp.
    pub(crate) fn with_layer(mut self, layer: Arc<dyn SessionLayer>) -> Self {
        self.layer = Some(layer);
        self
    }

    /// The shared writing half.
    pub(crate) fn outbox(&self) -> Outbox {
        self.outbox.clone()
    }

    /// Reads one line without ever holding more than `max_line` bytes of it (plus a `\r`
    /// before its newline). A longer line is scanned for its id while it is skipped. A last
    /// line cut by the end of input counts as a line. Cancel-safe: bytes are consumed only
    /// after they are copied into `self.line` or scanned.
    async fn read_line(&mut self) -> std::io::Result<Line> {
        // Room for a `\r` of a CRLF line end beyond the limit.
        let room = self.max_line + 1;
        loop {
            let buf = self.reader.fill_buf().await?;
            if buf.is_empty() {
                return Ok(match self.skipping.take() {
                    Some(scan) => Line::TooLong(scan.finish()),
                    None if !self.line.is_empty() => self.complete(), // no final newline
                    None => Line::Eof,
                });
            }
            let newline = buf.iter().position(|&b| b == b'\n');
            let chunk = newline.unwrap_or(buf.len());
            match &mut self.skipping {
                Some(scan) => scan.feed(&buf[..chunk]),
                None if self.line.len() + chunk > room => {
                    let mut scan = IdScan::new();
                    scan.feed(&self.line);
                    scan.feed(&buf[..chunk]);
                    self.skipping = Some(scan);
                    self.line.clear();
                }
                None => self.line.extend_from_slice(&buf[..chunk]),
            }
            self.reader.consume(newline.map_or(chunk, |i| i + 1));
            if newline.is_some() {
                return Ok(match self.skipping.take() {
                    Some(scan) => Line::TooLong(scan.finish()),
                    None => self.complete(),
                });
            }
        }
    }

    /// The line in `self.line` is whole: within the limit once a final `\r` is set aside.
    fn complete(&mut self) -> Line {
        if self.line.len() > self.max_line && self.line.last() != Some(&b'\r') {
            let mut scan = IdScan::new();
            scan.feed(&self.line);
            self.line.clear();
            return Line::TooLong(scan.finish());
        }
        Line::Complete
    }

    /// Queues an error response, written before the next wait for input. Without an id it
    /// carries `"id": null`, as JSON-RPC 2.0 requires (rmcp's type would leave the key out).
    fn reply_error(&mut self, error: ErrorData, id: Option<RequestId>) {
        /// rmcp's error frame, with the id always present.
        #[derive(serde::Serialize)]
        struct ErrorFrame {
            jsonrpc: JsonRpcVersion2_0,
            id: Option<RequestId>,
            error: ErrorData,
        }
        let frame = ErrorFrame {
            jsonrpc: JsonRpcVersion2_0,
            id,
            error,
        };
        if let Err(err) = self.outbox.queue(&frame) {
            tracing::debug!(%err, "an error response could not be written");
        }
    }

    /// Writes the answers queued while reading: before input may be waited for (one write
    /// for a burst of requests), or once [`WRITE_CHUNK`] bytes are queued (so that the
    /// client reads the first answers of a long burst while the rest are computed). While
    /// the backlog is over its limit (a client that stopped reading), no line is read: no
    /// new call starts. Cancel-safe: the outbox records every byte it writes.
    async fn write_answers(&mut self) -> Result<(), std::io::Error> {
        if !self.outbox.backed_up()
            && self.outbox.queued() < WRITE_CHUNK
            && self.reader.buffer().contains(&b'\n')
        {
            return Ok(()); // the next line needs no wait
        }
        self.outbox.write_now();
        self.outbox.room().await
    }
}

impl LineTransport {
    /// Answers a line over the limit: `-32600` with its id when the scan found a usable one,
    /// with `id: null` when the id is unusable or the line is no request; `-32700` when it
    /// is no JSON object; nothing when it is a notification.
    fn reply_too_long(&mut self, scanned: Scanned) {
        let limit = self.max_line;
        tracing::warn!(limit, "a message line exceeded the maximum length");
        let too_long =
            || format!("Invalid Request: the message exceeds the limit of {limit} bytes");
        let (error, id) = match scanned.id {
            FoundId::Number(n) => (too_long(), Some(RequestId::Number(n))),
            FoundId::String(s) => (too_long(), Some(RequestId::String(s.into()))),
            FoundId::Absent if scanned.object && scanned.method => {
                tracing::debug!("an over-limit notification was dropped");
                return;
            }
            FoundId::Absent if !scanned.object => {
                let error = ErrorData::parse_error(
                    format!("Parse error: a line exceeds the limit of {limit} bytes"),
                    None,
                );
                return self.reply_error(error, None);
            }
            FoundId::Absent | FoundId::Unusable => (
                format!("{}, and its id could not be read", too_long()),
                None,
            ),
        };
        self.reply_error(ErrorData::invalid_request(error, None), id);
    }
}

/// A transport failure (writing a frame).
#[derive(Debug)]
pub(crate) struct TransportError(std::io::Error);

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stdio transport: {}", self.0)
    }
}

impl std::error::Error for TransportError {}

impl Transport<RoleServer> for LineTransport {
    type Error = TransportError;

    fn send(
        &mut self,
        mut item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let keep = self
            .layer
            .as_ref()
            .is_none_or(|layer| layer.outgoing(&mut item));
        let outbox = self.outbox.clone();
        async move {
            if !keep {
                return Ok(());
            }
            outbox.send(&item).await.map_err(TransportError)
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let message = self.next_message().await;
        if message.is_none() {
            self.ended.get_or_insert_with(Instant::now);
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let deadline = *self.ended.get_or_insert_with(Instant::now) + DRAIN;
        if let Some(layer) = &self.layer {
            layer.drain(deadline).await;
        }
        // A client that keeps its end open but stops reading cannot hold the end up.
        match tokio::time::timeout_at(deadline.into(), self.outbox.flush()).await {
            Ok(flushed) => flushed.map_err(TransportError),
            Err(_) => {
                tracing::warn!("the client did not read the last answers in time");
                Ok(())
            }
        }
    }
}

impl LineTransport {
    /// The next message for rmcp, answering what it can here; `None` at the end of input,
    /// or once writing to the client failed (nobody would see the answers).
    async fn next_message(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.outbox.failed() {
                tracing::info!("the client stopped reading: the session ends");
                return None;
            }
            // Lines answered here never make this task wait: under a long burst it yields
            // now and then (tokio's cooperative budget), so that other tasks (calls that
            // wait, notification senders, timers, a write the pipe could not take) run.
            tokio::task::coop::consume_budget().await;
            if let Err(err) = self.write_answers().await {
                tracing::info!(%err, "writing to the client failed: the session ends");
                return None;
            }
            let read = self.read_line().await;
            match read {
                Ok(Line::Complete) => {
                    if let Some(layer) = &self.layer
                        && layer.try_line(&self.line)
                    {
                        self.line.clear();
                        continue;
                    }
                    let mut message = match decode(&self.line) {
                        Decoded::Message(message) => Some(message),
                        Decoded::Reply(error, id) => {
                            self.reply_error(error, id);
                            None
                        }
                        Decoded::Nothing => None,
                    };
                    self.line.clear();
                    if let Some(layer) = &self.layer {
                        message = message.and_then(|taken| layer.intercept(taken));
                    }
                    if message.is_some() {
                        return message;
                    }
                }
                Ok(Line::TooLong(scanned)) => self.reply_too_long(scanned),
                Ok(Line::Eof) => return None,
                Err(err) => {
                    tracing::error!(%err, "reading the input failed");
                    return None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
