//! The HTTP transport's short way (see `transport/http/shortcut.rs`): a stateless
//! `tools/call` of an offered tool, or an un-paginated `tools/list`, answered straight from
//! the handler, in exactly the JSON rmcp's service would send (the stdio fast path's
//! serialization). Anything else is left to rmcp.

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;

use rmcp::model::{CallToolRequestParams, PaginatedRequestParams, RequestId};
use tokio_util::sync::CancellationToken;

use super::envelope::{ToolMethod, response, tool_request};
use super::handler::{CallSetup, InFlight, ToolServer};
use crate::Caller;
use crate::transport::http::{Answer, Shortcut};

/// The handler, as the HTTP transport's shortcut.
pub(crate) struct HttpShortcut(pub(crate) ToolServer);

impl Shortcut for HttpShortcut {
    fn answer(&self, body: &[u8], caller: Caller) -> Option<Answer> {
        let (id, method, params) = tool_request(body)?;
        match method {
            ToolMethod::Call => self.call(id, params, caller),
            ToolMethod::List => self.list(id, params, &caller),
        }
    }
}

impl HttpShortcut {
    /// A call without `_meta` (no progress to stream, no per-request revision) of a tool the
    /// policy offers and the caller may call.
    fn call(&self, id: RequestId, params: &str, caller: Caller) -> Option<Answer> {
        let params = serde_json::from_str::<CallToolRequestParams>(params).ok()?;
        if params.meta.is_some() {
            return None;
        }
        let tool = self.0.lookup(&params.name).ok()?;
        #[cfg(feature = "auth")]
        if self.0.refuse(tool, &caller).is_some() {
            return None;
        }
        let server = self.0.clone();
        Some(Box::pin(async move {
            let token = CancellationToken::new();
            // A client that goes away drops this future: the call's token is cancelled, and a
            // call still running goes on in its own task to see it, as on rmcp's path.
            let cancel_on_drop = token.clone().drop_guard();
            let count = InFlight::count(&server);
            let setup = CallSetup {
                caller,
                ..CallSetup::default()
            };
            let start = std::time::Instant::now();
            let tool_name = tool.name();
            let mut work = Box::pin(async move {
                let result = server.run(tool, params.arguments, token, setup).await;
                drop(count);
                result
            });
            // Its first step runs here: most tools finish without waiting, and need no task.
            let first = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await;
            let result = match first {
                Poll::Ready(result) => result,
                Poll::Pending => match tokio::spawn(work).await {
                    Ok(result) => result,
                    Err(err) => {
                        let error = rmcp::ErrorData::internal_error(
                            format!("the call was lost: {err}"),
                            None,
                        );
                        return serde_json::to_vec(&response(id, Err(error))).unwrap_or_default();
                    }
                },
            };
            cancel_on_drop.disarm();
            tracing::debug!(
                tool = tool_name,
                is_error = result.is_error == Some(true),
                duration_us = start.elapsed().as_micros() as u64,
                short = true,
                "tools/call"
            );
            serde_json::to_vec(&response(id, Ok(result))).unwrap_or_default()
        }))
    }

    /// An un-paginated list without `_meta`: the list serialized once, or (with
    /// authorization) the tools this caller may call.
    fn list(&self, id: RequestId, params: &str, caller: &Caller) -> Option<Answer> {
        let params = serde_json::from_str::<PaginatedRequestParams>(params).ok()?;
        if params.meta.is_some() || params.cursor.is_some() {
            return None;
        }
        let id = serde_json::to_string(&id).ok()?;
        #[cfg(feature = "auth")]
        if let Some(names) = &self.0.scopes {
            let mut result = self.0.list_for(names, caller, None).ok()?;
            if result.next_cursor.is_some() {
                return None;
            }
            result.result_type = None;
            let json = serde_json::to_string(&result).ok()?;
            let body = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{json}}}");
            return Some(Box::pin(async move { body.into_bytes() }));
        }
        let _ = caller;
        let list: Arc<String> = self.0.cached_list()?.clone();
        Some(Box::pin(async move {
            let mut body = Vec::with_capacity(list.len() + id.len() + 32);
            body.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
            body.extend_from_slice(id.as_bytes());
            body.extend_from_slice(b",\"result\":");
            body.extend_from_slice(list.as_bytes());
            body.push(b'}');
            body
        }))
    }
}
