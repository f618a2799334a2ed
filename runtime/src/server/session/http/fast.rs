//! The HTTP fast path (see `transport/http/fast.rs`): a stateless `tools/call` or a first
//! `tools/list` page that the one allow-list (`call/decode.rs`) admits, answered straight
//! from the server in exactly the JSON rmcp's service would send; calls run through the call
//! pipeline. Anything else is left to rmcp. A call's log messages go on its own response
//! (`adapter/peer.rs`); a call asking for progress is rmcp's.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, RequestId};
use tokio_util::sync::CancellationToken;

use crate::Caller;
use crate::server::adapter::EventNotices;
use crate::server::adapter::ToolServer;
use crate::server::call::decode::{FastRequest, fast_request};
use crate::server::call::encode::{self, Answer, lost};
use crate::server::call::inline::Started;
use crate::server::call::{CallSetup, Way};
use crate::transport::http::{Body, CallEvents, FastPath};

/// The server, as the HTTP transport's fast path.
pub(crate) struct HttpFastPath(pub(crate) ToolServer);

impl FastPath for HttpFastPath {
    fn answer(&self, body: &[u8], caller: Caller, events: Option<CallEvents>) -> Option<Body> {
        match fast_request(body, false)? {
            FastRequest::Call { id, params } => Some(self.call(id, params, caller, events)),
            FastRequest::List { id } => self.list(id, &caller),
        }
    }
}

impl HttpFastPath {
    fn call(
        &self,
        id: RequestId,
        params: CallToolRequestParams,
        caller: Caller,
        events: Option<CallEvents>,
    ) -> Body {
        let server = self.0.clone();
        Box::pin(async move {
            let token = CancellationToken::new();
            // A client that goes away drops this future: the call's token is cancelled, and a
            // call still running goes on in its own task to see it, as on rmcp's path.
            let cancel_on_drop = token.clone().drop_guard();
            let blocks = server.pipeline.blocking.blocks(&params.name);
            let pool = server.pipeline.pool.clone();
            let blocking = server.pipeline.blocking.clone();
            let tracker = server.pipeline.tracker.clone();
            let setup = CallSetup {
                caller,
                sink: events.map(|events| Arc::new(EventNotices(events)) as _),
                ..CallSetup::default()
            };
            let work = async move { server.call(params, token, setup, Way::Http).await };
            let answer: Answer = match blocking.start(blocks, work) {
                Started::Done(answer) => answer,
                Started::Waiting(work) => tracker.spawn(work).await.unwrap_or_else(lost),
                Started::Blocks(work) => {
                    let work = tracker.track_future(work);
                    pool.block_on(work).await.unwrap_or_else(lost)
                }
            };
            cancel_on_drop.disarm();
            encode::to_bytes(&encode::response(id, answer, false))
        })
    }

    /// A first page: the list serialized once, or (with authorization) the tools this
    /// caller may call, when they fit on it.
    fn list(&self, id: RequestId, caller: &Caller) -> Option<Body> {
        let prefix = encode::result_prefix(&id);
        #[cfg(feature = "auth")]
        if let Some(names) = &self.0.pipeline.scopes {
            let mut result = self.0.list_for(names, caller, None).ok()?;
            if result.next_cursor.is_some() {
                return None;
            }
            result.result_type = None;
            let mut body = prefix;
            serde_json::to_writer(&mut body, &result).ok()?;
            body.push(b'}');
            return Some(Box::pin(async move { body }));
        }
        let _ = caller;
        let list: Arc<String> = self.0.cached_list()?.clone();
        Some(Box::pin(async move {
            let mut body = Vec::with_capacity(prefix.len() + list.len() + 1);
            body.extend_from_slice(&prefix);
            body.extend_from_slice(list.as_bytes());
            body.push(b'}');
            body
        }))
    }
}
