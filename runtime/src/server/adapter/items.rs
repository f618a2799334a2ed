//! What the adapter answers about resources, templates, prompts and completions. The lists
//! are made once (and filtered per caller with authorization, as `tools/list` is); a read, a
//! prompt and a completion go through the pipeline (`call/read.rs`). Subscriptions are kept
//! per session in the server's [`Subscriptions`].

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, Prompt,
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};

use super::{ToolServer, caller_of};
use crate::server::call::CallSetup;
use crate::server::subscriptions::Subscriptions;
use crate::{Caller, Registry};

/// The lists of resources, templates and prompts, made once per server.
#[derive(Default)]
pub(crate) struct Items {
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    prompts: Vec<Prompt>,
    pub(crate) subscriptions: Arc<Subscriptions>,
}

impl Items {
    pub(crate) fn new(registry: &'static Registry) -> Items {
        let resources = registry.resources();
        Items {
            resources: resources
                .iter()
                .filter_map(|r| r.mcp_resource())
                .cloned()
                .collect(),
            templates: resources
                .iter()
                .filter_map(|r| r.mcp_template())
                .cloned()
                .collect(),
            prompts: registry
                .prompts()
                .iter()
                .map(|p| p.mcp_prompt().clone())
                .collect(),
            subscriptions: Arc::default(),
        }
    }

    /// Adds what is registered to `capabilities`: `resources` (with subscriptions when a
    /// session can hear them), `prompts`, and `completions` when anything completes.
    pub(crate) fn capabilities(
        registry: &Registry,
        capabilities: &mut ServerCapabilities,
        sessions: bool,
    ) {
        if !registry.resources().is_empty() {
            let mut resources = rmcp::model::ResourcesCapability::default();
            resources.subscribe = Some(sessions);
            resources.list_changed = Some(sessions);
            capabilities.resources = Some(resources);
        }
        if !registry.prompts().is_empty() {
            capabilities.prompts = Some(rmcp::model::PromptsCapability::default());
        }
        let completes = registry
            .resources()
            .iter()
            .any(|r| r.completes().next().is_some())
            || registry
                .prompts()
                .iter()
                .any(|p| p.completes().next().is_some());
        if completes {
            capabilities.completions = Some(Default::default());
        }
    }
}

impl ToolServer {
    /// What a request runs with: its `_meta`, its caller, its channel to the client.
    fn setup(&self, context: &RequestContext<RoleServer>) -> CallSetup {
        #[cfg(feature = "http")]
        let sink = super::peer::PeerNotices::for_call(self, context)
            .map(|peer| peer as Arc<dyn crate::context::ClientChannel>)
            .or_else(|| self.notices.clone());
        #[cfg(not(feature = "http"))]
        let sink = self.notices.clone();
        let mut setup = CallSetup {
            sink,
            caller: caller_of(context),
            ..CallSetup::of_meta(&context.meta)
        };
        if setup.level.is_none() {
            setup.level = Some(self.level.clone());
        }
        setup
    }

    /// Whether `caller` may read what `scopes` guard (always, without authorization).
    fn may_see(&self, scopes: &'static [&'static str], caller: &Caller) -> bool {
        #[cfg(feature = "auth")]
        if let Some(names) = &self.pipeline.scopes {
            return names.required_for(scopes).granted_by(caller.scopes());
        }
        let _ = (scopes, caller);
        true
    }

    fn hear_lists(&self, context: &RequestContext<RoleServer>) {
        if self.subscribable() {
            self.items
                .subscriptions
                .hear_lists(self.session, context.peer.clone());
        }
    }

    /// Whether this session can hear notifications after its request (stdio, HTTP with
    /// sessions).
    fn subscribable(&self) -> bool {
        #[cfg(feature = "http")]
        return self.notices.is_some() || self.sessions;
        #[cfg(not(feature = "http"))]
        true
    }

    pub(crate) fn list_resources_for(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> ListResourcesResult {
        self.hear_lists(context);
        let caller = caller_of(context);
        let registry = self.pipeline.registry;
        let resources = self
            .items
            .resources
            .iter()
            .filter(|r| {
                registry
                    .resource_declared(&r.uri)
                    .is_some_and(|info| self.may_see(info.scopes(), &caller))
            })
            .cloned()
            .collect();
        let mut result = ListResourcesResult::with_all_items(resources);
        if context.meta.protocol_version().is_some() {
            (result.ttl_ms, result.cache_scope) = hints(self.list_hints());
        }
        result
    }

    pub(crate) fn list_templates_for(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> ListResourceTemplatesResult {
        let caller = caller_of(context);
        let registry = self.pipeline.registry;
        let templates = self
            .items
            .templates
            .iter()
            .filter(|t| {
                registry
                    .resource_declared(&t.uri_template)
                    .is_some_and(|info| self.may_see(info.scopes(), &caller))
            })
            .cloned()
            .collect();
        let mut result = ListResourceTemplatesResult::with_all_items(templates);
        if context.meta.protocol_version().is_some() {
            (result.ttl_ms, result.cache_scope) = hints(self.list_hints());
        }
        result
    }

    pub(crate) fn list_prompts_for(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> ListPromptsResult {
        let caller = caller_of(context);
        let registry = self.pipeline.registry;
        let prompts = self
            .items
            .prompts
            .iter()
            .filter(|p| {
                registry
                    .prompt(&p.name)
                    .is_some_and(|info| self.may_see(info.scopes(), &caller))
            })
            .cloned()
            .collect();
        let mut result = ListPromptsResult::with_all_items(prompts);
        if context.meta.protocol_version().is_some() {
            (result.ttl_ms, result.cache_scope) = hints(self.list_hints());
        }
        result
    }

    pub(crate) async fn read(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        let setup = self.setup(&context);
        let read = self.pipeline.read(request.uri, context.ct, setup);
        self.pipeline.tracker.track_future(read).await
    }

    pub(crate) async fn prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResult, ErrorData> {
        let setup = self.setup(&context);
        let prompt = self.pipeline.prompt(request, context.ct, setup);
        self.pipeline.tracker.track_future(prompt).await
    }

    pub(crate) async fn complete_for(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.pipeline.complete(request, caller_of(&context)).await
    }

    pub(crate) fn subscribe_to(
        &self,
        request: SubscribeRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !self.subscribable() {
            return Err(ErrorData::invalid_request(
                "this server is stateless over HTTP: no later notification could reach you. Subscribe with subscriptions/listen (2026-07-28), or serve with --sessions",
                None,
            ));
        }
        let caller = caller_of(context);
        match self.pipeline.registry.resource_for(&request.uri) {
            Some(resource) if self.may_see(resource.scopes(), &caller) => {}
            _ => return Err(crate::server::call::read::resource_not_found(&request.uri)),
        }
        let subscribed =
            self.items
                .subscriptions
                .subscribe(self.session, request.uri, context.peer.clone());
        subscribed.map_err(|max| {
            ErrorData::invalid_request(
                format!(
                    "this session is subscribed to {max} resources, the most it may be: unsubscribe from one first"
                ),
                None,
            )
        })
    }

    pub(crate) fn unsubscribe_from(&self, request: UnsubscribeRequestParams) {
        self.items
            .subscriptions
            .unsubscribe(self.session, &request.uri);
    }

    /// Of a `subscriptions/listen` filter, what this server can send: resource updates of
    /// URIs it has, and the resource list.
    pub(crate) fn accepted_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        if self.pipeline.registry.resources().is_empty() {
            return None;
        }
        let mut accepted = SubscriptionFilter::new();
        accepted.resources_list_changed = requested.resources_list_changed;
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| self.pipeline.registry.resource_for(uri).is_some())
                .take(crate::server::subscriptions::MAX_SUBSCRIPTIONS)
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    pub(crate) async fn listen_on(&self, context: SubscriptionContext) {
        let _listening = self.items.subscriptions.listen(
            self.session,
            context.accepted(),
            context.sink().clone(),
        );
        context.cancelled().await;
    }
}

fn hints(
    (ttl, scope): (u64, rmcp::model::CacheScope),
) -> (Option<u64>, Option<rmcp::model::CacheScope>) {
    (Some(ttl), Some(scope))
}
