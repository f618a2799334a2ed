//! One session: a transport, the session layer in front of rmcp (the fast path) and the
//! handler, joined; and the sink that carries the tools' notifications to the transport.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

use std::sync::Arc;

use rmcp::model::{LoggingMessageNotification, ProgressNotification, ServerNotification};
use rmcp::service::{ServerInitializeError, TxJsonRpcMessage};
use rmcp::{RoleServer, ServiceExt};

use super::Serving;
use super::fast::FastPath;
use super::handler::ToolServer;
use crate::Error;
use crate::context::{Notice, NoticeSink};
use crate::transport::stdio::{Input, LineTransport, Outbox, Output};

/// Past this many bytes waiting for a client that does not read, notifications are dropped
/// (a later progress report supersedes an earlier one); responses never are.
pub(crate) const NOTICE_BACKLOG: usize = 1 << 20;

/// The tools' notifications, queued in the session's outbox in the order they are sent.
struct OutboxNotices(Outbox);

impl NoticeSink for OutboxNotices {
    fn notify(&self, notice: Notice) {
        if self.0.queued() > NOTICE_BACKLOG {
            tracing::debug!("the client is not reading: a notification was dropped");
            return;
        }
        let notification = match notice {
            Notice::Progress(param) => {
                ServerNotification::ProgressNotification(ProgressNotification::new(param))
            }
            Notice::Log(param) => ServerNotification::LoggingMessageNotification(
                LoggingMessageNotification::new(param),
            ),
        };
        let frame = TxJsonRpcMessage::<RoleServer>::notification(notification);
        match self.0.queue(&frame) {
            Ok(()) => self.0.write_soon(),
            Err(err) => tracing::debug!(%err, "a notification could not be sent"),
        }
    }
}

/// Serves one session. Not generic, and boxed: whatever the byte streams, the serving
/// machinery is compiled once, in this crate.
pub(crate) fn serve(
    handler: ToolServer,
    read: Input,
    write: Output,
    max_line: usize,
    fast: bool,
) -> Serving {
    Box::pin(serve_session(
        handler,
        LineTransport::new(read, write, max_line),
        fast,
    ))
}

async fn serve_session(
    mut handler: ToolServer,
    mut transport: LineTransport,
    fast: bool,
) -> Result<(), Error> {
    let outbox = transport.outbox();
    handler.notices = Some(Arc::new(OutboxNotices(outbox.clone())));
    let layer = FastPath::new(handler.clone(), outbox, fast);
    transport = transport.with_shortcut(Arc::new(layer));
    let running = match handler.serve(transport).await {
        Ok(running) => running,
        // The input ended before the session started: a launcher probing the binary, a
        // user's Ctrl-D, `</dev/null`. Nothing was asked, so nothing failed.
        Err(ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("the input ended before the session started");
            return Ok(());
        }
        Err(err) => return Err(Error::Initialize(Box::new(err))),
    };
    running.waiting().await.map_err(Error::Task)?;
    Ok(())
}
