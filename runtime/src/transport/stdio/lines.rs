//! The newline-delimited JSON-RPC transport toolsmith serves on: rmcp's message types, with
//! the guarantees a stdio server needs.
//!
//! - A line that is not JSON gets a `-32700 Parse error` response with `id: null` (rmcp's own
//!   transport drops it silently).
//! - A well-formed line that is not a valid message gets `-32600 Invalid Request` with its id
//!   when it has one, so that every request with an id is answered.
//! - A line longer than the maximum is never buffered whole: its first bytes are kept to read
//!   the id, the rest is skipped, and the request gets `-32600` (or `-32700` with `id: null`
//!   when no id can be read).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientRequest, ErrorData, JsonRpcMessage, JsonRpcVersion2_0, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};

use super::idscan::{FoundId, IdScan, Scanned};
use super::outbox::{BACKLOG, Outbox};

/// The longest request line accepted unless configured otherwise: 4 MiB.
///
/// ```
/// assert_eq!(toolsmith::DEFAULT_MAX_LINE, 4 * 1024 * 1024);
/// ```
pub const DEFAULT_MAX_LINE: usize = 4 * 1024 * 1024;

/// Answers queued past this many bytes are written even while more requests are buffered.
const WRITE_CHUNK: usize = 4096;

/// The reading half: boxed, so that the transport (and rmcp's service loop over it) is
/// compiled once, whatever the byte streams.
pub(crate) type Input = Box<dyn AsyncRead + Send + Unpin>;
/// The writing half.
pub(crate) type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// A session layer that sees every line and message before rmcp does, and answers some of
/// them itself (the server's fast path). The transport knows it only through this trait.
pub(crate) trait Shortcut: Send + Sync {
    /// Offered each complete line before it is parsed: `true` when the line was handled.
    fn try_line(&self, line: &[u8]) -> bool;
    /// Offered each parsed message: what rmcp should get, if anything.
    fn intercept(
        &self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>>;
    /// Sees each frame rmcp sends, before it is written.
    fn observe(&self, frame: &TxJsonRpcMessage<RoleServer>);
    /// At the end of input: lets the work in flight finish, within a bound.
    fn drain(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
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
    fast: Option<Arc<dyn Shortcut>>,
}

impl LineTransport {
    pub(crate) fn new(read: Input, write: Output, max_line: usize) -> Self {
        LineTransport {
            reader: BufReader::with_capacity(32 * 1024, read),
            line: Vec::new(),
            skipping: None,
            max_line: max_line.max(1),
            outbox: Outbox::new(write),
            fast: None,
        }
    }

    /// Puts `shortcut` in front of rmcp.
    pub(crate) fn with_shortcut(mut self, shortcut: Arc<dyn Shortcut>) -> Self {
        self.fast = Some(shortcut);
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
    /// client reads the first answers of a long burst while the rest are computed). Waits
    /// for the writer when a client stopped reading. Cancel-safe: the outbox records every
    /// byte it writes.
    async fn write_answers(&mut self) -> Result<(), std::io::Error> {
        let queued = self.outbox.queued();
        if queued < WRITE_CHUNK && self.reader.buffer().contains(&b'\n') {
            return Ok(()); // the next line needs no wait
        }
        self.outbox.write_now();
        if self.outbox.queued() > BACKLOG {
            self.outbox.flush().await?;
        }
        Ok(())
    }

    /// Decides what a complete line is: a message for rmcp, or an error answered here.
    fn decode(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let mut line: &[u8] = &self.line;
        line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let parsed = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line);
        let message = match parsed {
            Ok(message) => return self.known_method_check(message),
            Err(err) => err,
        };
        match serde_json::from_slice::<Value>(line) {
            Err(err) => {
                let error = ErrorData::parse_error(format!("Parse error: {err}"), None);
                self.reply_error(error, None);
            }
            Ok(value) => {
                let id = value
                    .get("id")
                    .and_then(|id| serde_json::from_value(id.clone()).ok());
                let is_request = value.get("method").is_some() || value.get("result").is_none();
                match id {
                    Some(id) if is_request => {
                        let error =
                            ErrorData::invalid_request(format!("Invalid Request: {message}"), None);
                        self.reply_error(error, Some(id));
                    }
                    // A notification or a response: nothing may answer it.
                    _ if value.get("method").is_some() || value.get("id").is_some() => {
                        tracing::debug!(%message, "dropping an invalid notification or response");
                    }
                    _ => {
                        let error =
                            ErrorData::invalid_request(format!("Invalid Request: {message}"), None);
                        self.reply_error(error, None);
                    }
                }
            }
        }
        None
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

/// The MCP methods rmcp knows: a request for one of them that rmcp could only read as a
/// custom request has params of the wrong shape.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "logging/setLevel",
    "completion/complete",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
];

impl LineTransport {
    /// Answers `-32602` for a known method whose params do not fit it (rmcp would route it
    /// to `on_custom_request` and answer "method not found").
    fn known_method_check(
        &mut self,
        message: RxJsonRpcMessage<RoleServer>,
    ) -> Option<RxJsonRpcMessage<RoleServer>> {
        if let JsonRpcMessage::Request(request) = &message
            && let ClientRequest::CustomRequest(custom) = &request.request
            && KNOWN_METHODS.contains(&custom.method.as_str())
        {
            let why = match custom.method.as_str() {
                // Parsed from text: the parser of these params is in the binary already.
                "tools/call" => serde_json::from_str::<CallToolRequestParams>(
                    &custom.params.as_ref().unwrap_or(&Value::Null).to_string(),
                )
                .err()
                .map_or_else(String::new, |e| format!(": {e}")),
                _ => String::new(),
            };
            let error = ErrorData::invalid_params(
                format!("Invalid params for '{}'{why}", custom.method),
                None,
            );
            self.reply_error(error, Some(request.id.clone()));
            return None;
        }
        Some(message)
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
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let Some(fast) = &self.fast {
            fast.observe(&item);
        }
        let outbox = self.outbox.clone();
        async move { outbox.send(&item).await.map_err(TransportError) }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // Lines answered here never make this task wait: under a long burst it yields
            // now and then (tokio's cooperative budget), so that other tasks (calls that
            // wait, notification senders, timers, a write the pipe could not take) run.
            tokio::task::coop::consume_budget().await;
            if let Err(err) = self.write_answers().await {
                tracing::debug!(%err, "writing to the client failed");
            }
            let read = self.read_line().await;
            match read {
                Ok(Line::Complete) => {
                    if let Some(fast) = &self.fast
                        && fast.try_line(&self.line)
                    {
                        self.line.clear();
                        continue;
                    }
                    let mut message = self.decode();
                    self.line.clear();
                    if let Some(fast) = &self.fast {
                        message = message.and_then(|taken| fast.intercept(taken));
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

    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(fast) = &self.fast {
            fast.drain().await;
        }
        self.outbox.flush().await.map_err(TransportError)
    }
}

#[cfg(test)]
mod tests;
