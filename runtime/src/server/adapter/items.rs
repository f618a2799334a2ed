//! What the adapter answers about resources, templates, prompts and completions. The lists
//! are made once, each entry with the scopes it needs, and filtered per caller with
//! authorization, as `tools/list` is; a read, a prompt and a completion go through the
//! pipeline (`call/read.rs`). Subscriptions are kept per session in the server's
//! [`Subscriptions`], and a caller subscribes only to what it may read.

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};

use super::{Front, caller_of};
use crate::context::Caller;
use crate::server::front::{
    MAX_SUBSCRIBED_URI, MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTIONS_TOTAL, Refused, Scopes, Way,
    resource_not_found,
};

/// The entries of `list` that `caller` may see.
fn visible<T: Clone>(server: &Front, list: &[(T, Scopes)], caller: &Caller) -> Vec<T> {
    list.iter()
        .filter(|(_, scopes)| server.pipeline.can_read(scopes, caller))
        .map(|(entry, _)| entry.clone())
        .collect()
}

impl Front {
    /// Whether this session can hear notifications after its request (stdio, HTTP with
    /// sessions).
    pub(super) fn subscribable(&self) -> bool {
        #[cfg(feature = "http")]
        return self.notices.is_some() || self.sessions;
        #[cfg(not(feature = "http"))]
        true
    }

    /// The caching hints of a 2026-07-28 list, when the request is of that revision.
    fn hinted(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> (Option<u64>, Option<rmcp::model::CacheScope>) {
        match context.meta.protocol_version() {
            Some(_) => {
                let (ttl, scope) = self.list_hints();
                (Some(ttl), Some(scope))
            }
            None => (None, None),
        }
    }

    pub(crate) fn list_resources_for(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> ListResourcesResult {
        if self.subscribable() {
            let subscriptions = &self.subscriptions;
            subscriptions.hear_lists(self.session.id, context.peer.clone());
        }
        let listed = visible(self, &self.catalog().resources, &caller_of(context));
        let mut result = ListResourcesResult::with_all_items(listed);
        (result.ttl_ms, result.cache_scope) = self.hinted(context);
        result
    }

    pub(crate) fn list_templates_for(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> ListResourceTemplatesResult {
        let listed = visible(self, &self.catalog().templates, &caller_of(context));
        let mut result = ListResourceTemplatesResult::with_all_items(listed);
        (result.ttl_ms, result.cache_scope) = self.hinted(context);
        result
    }

    pub(crate) fn list_prompts_for(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> ListPromptsResult {
        let listed = visible(self, &self.catalog().prompts, &caller_of(context));
        let mut result = ListPromptsResult::with_all_items(listed);
        (result.ttl_ms, result.cache_scope) = self.hinted(context);
        result
    }

    pub(crate) async fn read(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let (setup, flush) = self.setup_of(&context);
        let read = self
            .pipeline
            .read(request.uri, context.ct, setup, Way::Rmcp);
        let answer = self.pipeline.tracker.track_future(read).await;
        flush.done().await;
        answer
    }

    pub(crate) async fn prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResult, ErrorData> {
        let (setup, flush) = self.setup_of(&context);
        let prompt = self.pipeline.prompt(request, context.ct, setup, Way::Rmcp);
        let answer = self.pipeline.tracker.track_future(prompt).await;
        flush.done().await;
        answer
    }

    pub(crate) async fn complete_for(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let complete = self
            .pipeline
            .complete(request, caller_of(&context), context.ct);
        self.pipeline.tracker.track_future(complete).await
    }

    pub(crate) fn subscribe_to(
        &self,
        request: SubscribeRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !self.subscribable() {
            return Err(ErrorData::invalid_request(
                "this server is stateless over HTTP (--stateless): no later notification could reach you. Serve with sessions (the default, or --sessions) to subscribe",
                None,
            ));
        }
        // Access as for a read: a resource the caller may not read is refused as a read is.
        let registry = self.pipeline.registry.current();
        let Some(resource) = registry.resource_for(&request.uri) else {
            return Err(resource_not_found(&request.uri));
        };
        let caller = caller_of(context);
        self.pipeline.may_read(
            resource.header().scopes(),
            "subscribe to",
            &request.uri,
            &caller,
        )?;
        let subscriptions = &self.subscriptions;
        let subscribed =
            subscriptions.subscribe(self.session.id, &request.uri, context.peer.clone());
        subscribed.map_err(|refused| {
            let message = match refused {
                Refused::Full => format!(
                    "this session is subscribed to {MAX_SUBSCRIPTIONS} resources, the most it may be: unsubscribe from one first"
                ),
                Refused::ServerFull => format!(
                    "the server holds {MAX_SUBSCRIPTIONS_TOTAL} subscriptions, the most it keeps for all its sessions: try again later"
                ),
                Refused::TooLong => format!(
                    "a subscribed URI is at most {MAX_SUBSCRIBED_URI} bytes long"
                ),
            };
            ErrorData::invalid_request(message, None)
        })
    }

    pub(crate) fn unsubscribe_from(&self, request: UnsubscribeRequestParams) {
        let subscriptions = &self.subscriptions;
        subscriptions.unsubscribe(self.session.id, &request.uri);
    }

    /// Of a `subscriptions/listen` filter, what this server takes: the resource list, and the
    /// URIs asked for (at most a session's budget). Which of them exist, and which the caller
    /// may read, is decided by [`Front::listen_on`], out of sight: the acknowledgment
    /// tells nobody what exists.
    pub(crate) fn accepted_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let resources = !self.pipeline.registry.load().resources().is_empty();
        if !resources && !self.live {
            return None;
        }
        let mut accepted = SubscriptionFilter::new();
        if self.live {
            accepted.tools_list_changed = requested.tools_list_changed;
            accepted.prompts_list_changed = requested.prompts_list_changed;
        }
        accepted.resources_list_changed = requested.resources_list_changed;
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| uri.len() <= MAX_SUBSCRIBED_URI)
                .take(MAX_SUBSCRIPTIONS)
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    /// A listen stream: heard for the accepted URIs that name a resource the caller may read,
    /// until the client cancels it.
    pub(crate) async fn listen_on(&self, context: SubscriptionContext) {
        let caller = caller_of(context.request_context());
        let registry = self.pipeline.registry.current();
        let accepted = context.accepted();
        let uris: Vec<String> = accepted
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| {
                registry
                    .resource_for(uri)
                    .is_some_and(|r| self.pipeline.can_read(r.header().scopes(), &caller))
            })
            .cloned()
            .collect();
        let lists = crate::registry::Changed {
            tools: accepted.tools_list_changed == Some(true),
            resources: accepted.resources_list_changed == Some(true),
            prompts: accepted.prompts_list_changed == Some(true),
        };
        let _listening =
            self.subscriptions
                .listen(self.session.id, &uris, lists, context.sink().clone());
        context.cancelled().await;
    }
}
