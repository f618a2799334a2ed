//! A stdio session (or one on any byte stream pair): the line transport, the session layer
//! in front of rmcp with its fast path (`layer.rs`), and the adapter rmcp drives, joined; and
//! the sink that carries the tools' notifications to the transport.

#![allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); 2025-11-25 still has it.

mod channel;
mod layer;

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;

use super::lifecycle::Lifecycle;
use crate::Error;
use crate::server::ServeFuture;
use crate::server::front::Front;
use crate::transport::stdio::{Input, LineTransport, Output};
use channel::StdioChannel;
use layer::StdioLayer;

/// Serves one session. Not generic, and boxed: whatever the byte streams, the serving
/// machinery is compiled once, in this crate.
pub(crate) fn serve(
    handler: Front,
    read: Input,
    write: Output,
    max_line: usize,
    fast: bool,
) -> ServeFuture {
    Box::pin(serve_session(
        handler,
        LineTransport::new(read, write, max_line),
        fast,
    ))
}

async fn serve_session(
    mut handler: Front,
    mut transport: LineTransport,
    fast: bool,
) -> Result<(), Error> {
    let outbox = transport.outbox();
    let lifecycle = Arc::new(Lifecycle::default());
    let channel = Arc::new(StdioChannel::new(outbox.clone(), lifecycle.clone()));
    handler.notices = Some(channel.clone());
    let layer = StdioLayer::new(handler.clone(), outbox, channel, lifecycle, fast);
    transport = transport.with_layer(Arc::new(layer));
    let tasks = handler.pipeline.tasks.clone();
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
    let waited = running.waiting().await;
    // Tasks still running end with the session: failed as stopped, for a client to see.
    tasks.stop().await;
    waited.map_err(|err| Error::Task(Box::new(err)))?;
    Ok(())
}
