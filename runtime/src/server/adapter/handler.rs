//! How rmcp's requests are answered: every method of the protocol, each timed as an MCP
//! operation (`measure.rs`), calls, reads and prompts through the pipeline.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, DiscoverResult,
    GetPromptRequestParams, GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerConfig, SetLevelRequestParams, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::{Front, caller_of};
use crate::context::LogLevel;
use crate::server::front::{Asked, Way};

impl ServerHandler for Front {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, ErrorData> {
        // As rmcp's own: the peer's handshake is kept, and the revision negotiated.
        context.peer.set_peer_info(request.clone());
        let began = self.clock();
        let agreed = self.negotiate_initialize(&request);
        // A session the server opened, now restored into rmcp's service: its client's
        // `initialize` was counted when it came.
        #[cfg(feature = "http")]
        let replayed = context
            .extensions
            .get::<rmcp::transport::streamable_http_server::SessionRestoreMarker>()
            .is_some();
        #[cfg(not(feature = "http"))]
        let replayed = false;
        if let Ok(result) = &agreed
            && !replayed
        {
            self.ends.agreed(&result.protocol_version);
            self.answered(
                began,
                "initialize",
                self.transport,
                Some(&result.protocol_version),
            );
        }
        agreed
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let version = self.version_for(&context);
        self.measured("ping", version, async { Ok(()) }).await
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        // A session of a server whose set can change hears when it does.
        if self.live && self.subscribable() {
            self.subscriptions
                .hear_every_list(self.session.id, context.peer);
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let version = self.version_for(&context);
        self.measured("tools/list", version, async move {
            let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
            // 2026-07-28 has caching hints; earlier revisions do not know them.
            let per_request = context.meta.protocol_version().is_some();
            self.tools_list(&caller_of(&context), cursor, per_request)
        })
        .await
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let version = self.version_for(&context);
        self.measured("server/discover", version, async move {
            Ok(self.discover_result())
        })
        .await
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (setup, flush) = self.setup_of(&context);
        // rmcp moved the request's `_meta` into the context: the pipeline reads it from the
        // params, as on the fast paths (a call that asks needs the client's capabilities).
        if request.meta.is_none() {
            request.meta = Some(std::mem::take(&mut context.meta));
        }
        // Scheduled as on every way in (`front/answer.rs`).
        let front = Arc::new(self.clone());
        let asked = Asked {
            way: Way::Rmcp,
            setup,
            cancel: context.ct,
        };
        let answer = front.call(request, asked).settled(&front).await;
        flush.done().await;
        answer
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let version = self.version_for(&context);
        self.measured("resources/list", version, async move {
            self.has_resources::<rmcp::model::ListResourcesRequestMethod>()?;
            Ok(self.list_resources_for(&context))
        })
        .await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let version = self.version_for(&context);
        self.measured("resources/templates/list", version, async move {
            self.has_resources::<rmcp::model::ListResourceTemplatesRequestMethod>()?;
            Ok(self.list_templates_for(&context))
        })
        .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.has_resources::<rmcp::model::ReadResourceRequestMethod>()?;
        self.read(request, context).await.map(Into::into)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let version = self.version_for(&context);
        self.measured("prompts/list", version, async move {
            self.has_prompts::<rmcp::model::ListPromptsRequestMethod>()?;
            Ok(self.list_prompts_for(&context))
        })
        .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.has_prompts::<rmcp::model::GetPromptRequestMethod>()?;
        self.prompt(request, context).await.map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let version = self.version_for(&context);
        self.measured("completion/complete", version, async move {
            if self.info.capabilities.completions.is_none() {
                return Err(ErrorData::method_not_found::<
                    rmcp::model::CompleteRequestMethod,
                >());
            }
            self.complete_for(request, context).await
        })
        .await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let version = self.version_for(&context);
        self.measured("resources/subscribe", version, async move {
            self.has_resources::<rmcp::model::SubscribeRequestMethod>()?;
            self.subscribe_to(request, &context)
        })
        .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let version = self.version_for(&context);
        self.measured("resources/unsubscribe", version, async move {
            self.has_resources::<rmcp::model::UnsubscribeRequestMethod>()?;
            self.unsubscribe_from(request);
            Ok(())
        })
        .await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.accepted_filter(requested)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.listen_on(context).await;
        Ok(())
    }

    #[allow(deprecated)] // MCP logging: deprecated in rmcp (SEP-2577), still in 2025-11-25.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let version = self.version_for(&context);
        self.measured("logging/setLevel", version, async move {
            self.level.set(LogLevel::from_wire(request.level));
            Ok(())
        })
        .await
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        let version = self.version_for(&context);
        self.measured("tasks/get", version, async move {
            let caller = caller_of(&context);
            self.pipeline.get_task(&request.task_id, &caller).await
        })
        .await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let version = self.version_for(&context);
        self.measured("tasks/update", version, async move {
            let caller = caller_of(&context);
            self.pipeline.update_task(&request.task_id, &caller).await
        })
        .await
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let version = self.version_for(&context);
        self.measured("tasks/cancel", version, async move {
            let caller = caller_of(&context);
            self.pipeline.cancel_task(&request.task_id, &caller).await
        })
        .await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.listed_tool(name)
    }
}
