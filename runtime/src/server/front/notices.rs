//! A call's channel to its client on the HTTP fast path: its notifications as events of its
//! own response (`transport/http/events.rs`); and what no stateless call can do (ask its
//! client), the same on rmcp's path (`adapter/peer.rs`).

use std::sync::Arc;

use rmcp::model::{ClientCapabilities, ServerJsonRpcMessage, ServerRequest};

use crate::context::{ChannelError, ClientChannel, Notice, NoticeSink, Reply, declined, permits};
use crate::transport::http::CallEvents;

/// Why a stateless request over HTTP cannot ask its client anything.
pub(crate) const STATELESS: ChannelError = ChannelError::Unsupported(
    "this server is stateless over HTTP (--stateless): the client's answer could reach another \
     replica. Use the 2026-07-28 revision, or serve with sessions (the default, or --sessions)",
);

/// A call's channel to its client on the HTTP fast path: its notifications, as events of its
/// own response (`transport/http/events.rs`), when the client takes them. Stateless, it
/// cannot ask the client anything; in a session the server opened, it knows what the client
/// declared, and is used only for clients that declared nothing the server could ask.
pub(crate) struct EventNotices {
    pub(crate) events: Option<CallEvents>,
    /// In a session: what its client declared.
    pub(crate) capabilities: Option<Arc<ClientCapabilities>>,
}

/// Why a call on the fast path of a session cannot ask its client something the client
/// declared it takes (it never does: such a session's calls are rmcp's).
const NOT_ON_THE_FAST_PATH: ChannelError =
    ChannelError::Unsupported("this request cannot reach the client from this call");

impl NoticeSink for EventNotices {
    fn notify(&self, notice: Notice) {
        if let Some(events) = &self.events {
            events.send(message(notice));
        }
    }
}

impl ClientChannel for EventNotices {
    fn capabilities(&self) -> Option<Arc<ClientCapabilities>> {
        self.capabilities.clone()
    }

    fn request(&self, request: ServerRequest) -> Reply {
        match &self.capabilities {
            None => declined(STATELESS),
            Some(capabilities) => match permits(Some(capabilities), &request) {
                Err(why) => declined(why),
                Ok(()) => declined(NOT_ON_THE_FAST_PATH),
            },
        }
    }
}

/// `notice` as a whole JSON-RPC notification.
pub(crate) fn message(notice: Notice) -> Vec<u8> {
    let message = ServerJsonRpcMessage::notification(notice.into_notification());
    serde_json::to_vec(&message).unwrap_or_default()
}
