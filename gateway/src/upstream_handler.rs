//! The gateway's client side of an upstream session ([`UpstreamHandler`]): what the gateway
//! hears from an upstream besides answers, that its tool, resource or prompt list changed, by
//! a `notifications/…/list_changed` (earlier revisions, or unscoped) or on a 2026-07-28 listen
//! stream the gateway opens for it; questions (see `relay.rs`). Progress and log messages are
//! read off the transport, in order (see `relaying_transport.rs`).

#![allow(deprecated)] // rmcp marks MCP sampling deprecated (SEP-2577); 2025-11-25 still has it.

use rmcp::RoleClient;
use rmcp::handler::client::ClientHandler;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{ClientConfig, ServerNotification, SubscriptionFilter};
use rmcp::model::{CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult};
use rmcp::model::{ElicitRequest, ElicitRequestParams, ElicitResult, InputRequest};
use rmcp::service::RequestContext;
use rmcp::service::{NotificationContext, Peer};
use serde::de::DeserializeOwned;
use tokio::sync::mpsc;

use crate::relay::Relay;

/// Which of an upstream's lists changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Changed {
    Tools,
    /// Its resources, resource templates or prompts.
    Items,
}

/// The gateway's client side of one upstream session: it says who it is, and passes on that
/// the upstream's lists changed, and puts its questions to the client of the call.
pub(crate) struct UpstreamHandler {
    pub(crate) info: ClientConfig,
    pub(crate) changed: mpsc::UnboundedSender<Changed>,
    pub(crate) relay: Arc<Relay>,
}

impl ClientHandler for UpstreamHandler {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Changed::Tools);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Changed::Items);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(Changed::Items);
    }

    async fn create_elicitation(
        &self,
        mut request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // rmcp keeps the request's `_meta` apart: passed on with it (a confirmation's mark).
        if let ElicitRequestParams::FormElicitationParams { meta, .. }
        | ElicitRequestParams::UrlElicitationParams { meta, .. } = &mut request
            && meta.is_none()
            && !context.meta.0.0.is_empty()
        {
            *meta = Some(context.meta);
        }
        let question = InputRequest::Elicitation(ElicitRequest::new(request));
        answer(self.relay.ask(question).await)
    }

    async fn create_message(
        &self,
        mut params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        if params.meta.is_none() && !context.meta.0.0.is_empty() {
            params.meta = Some(context.meta);
        }
        let question = InputRequest::CreateMessage(CreateMessageRequest::new(params));
        answer(self.relay.ask(question).await)
    }
}

/// On a 2026-07-28 session with an upstream whose lists can change, a listen stream for
/// that, each notification passed on to `changed`; it ends with the session. Nothing on
/// earlier revisions (the notifications come unasked, to [`UpstreamHandler`]).
pub(crate) fn listen(peer: &Peer<RoleClient>, changed: mpsc::UnboundedSender<Changed>) {
    let Some(info) = peer.peer_info() else {
        return;
    };
    if info.protocol_version.has_initialize() {
        return;
    }
    let declared = &info.capabilities;
    let tools = declared.tools.as_ref().and_then(|c| c.list_changed) == Some(true);
    let resources = declared.resources.as_ref().and_then(|c| c.list_changed) == Some(true);
    let prompts = declared.prompts.as_ref().and_then(|c| c.list_changed) == Some(true);
    if !(tools || resources || prompts) {
        return;
    }
    let mut filter = SubscriptionFilter::builder();
    if tools {
        filter = filter.tools_list_changed();
    }
    if resources {
        filter = filter.resources_list_changed();
    }
    if prompts {
        filter = filter.prompts_list_changed();
    }
    let filter = filter.build();
    let peer = peer.clone();
    tokio::spawn(async move {
        let Ok(mut stream) = peer.listen(filter).await else {
            tracing::debug!(
                "the upstream refused a listen stream: its lists are read at restarts only"
            );
            return;
        };
        while let Ok(Some(notification)) = stream.next().await {
            let what = match notification {
                ServerNotification::ToolListChangedNotification(_) => Changed::Tools,
                ServerNotification::ResourceListChangedNotification(_)
                | ServerNotification::PromptListChangedNotification(_) => Changed::Items,
                _ => continue,
            };
            let _ = changed.send(what);
        }
    });
}

/// The client's answer to an upstream's question, as the upstream gets it.
fn answer<T: DeserializeOwned>(answer: Result<serde_json::Value, String>) -> Result<T, ErrorData> {
    let answer = answer.map_err(|why| ErrorData::internal_error(why, None))?;
    serde_json::from_value(answer).map_err(|err| {
        ErrorData::internal_error(format!("the client's answer was not one: {err}"), None)
    })
}
