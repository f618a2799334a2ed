//! The handler rmcp drives ([`ToolServer`]): `tools/list` with pagination, `tools/call`
//! under the serving policy, `logging/setLevel`. The transport's fast path calls into it too.

// rmcp marks MCP logging deprecated (SEP-2577); protocol 2025-11-25 still has it, and
// `ClientLog` honours it.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ProgressToken, ServerCapabilities, ServerConfig,
    SetLevelRequestParams, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

use super::sync::SyncLimit;
use super::{Policy, dispatch};
use crate::Caller;
use crate::context::{CallContext, NoticeSink, SessionLevel, StateMap};
use crate::registry::search::{self, SearchError};
use crate::{ErrorKind, LogLevel, Registry, ToolInfo};

/// What a call runs with besides its arguments.
#[derive(Default)]
pub(crate) struct CallSetup {
    /// The client's progress token.
    pub(crate) progress: Option<ProgressToken>,
    /// The log level of this call alone (else the session's).
    pub(crate) level: Option<SessionLevel>,
    /// Where its notifications go (else the session's sink).
    pub(crate) sink: Option<Arc<dyn NoticeSink>>,
    /// Who is calling.
    pub(crate) caller: Caller,
}

/// The handler rmcp drives: every request about tools is answered from the registry.
#[derive(Clone)]
pub(crate) struct ToolServer {
    pub(super) registry: &'static Registry,
    info: Arc<ServerConfig>,
    pub(super) policy: Arc<Policy>,
    /// The tools the policy offers, as `tools/list` sends them.
    pub(crate) offered: Arc<Vec<Tool>>,
    page_size: usize,
    cursor_scope: u64,
    states: StateMap,
    level: SessionLevel,
    /// Where the tools' notifications go: straight to the transport, so that they keep their
    /// order before the response and are not lost when the input has already closed.
    pub(crate) notices: Option<Arc<dyn NoticeSink>>,
    /// Bounds the sync tool calls running at once.
    sync: SyncLimit,
    /// Calls in flight on rmcp's path, across every session of this server.
    #[cfg(feature = "http")]
    pub(crate) in_flight: Arc<std::sync::atomic::AtomicUsize>,
    /// With authorization: the names of the hint scopes, by which a caller's calls and list
    /// are decided.
    #[cfg(feature = "auth")]
    pub(crate) scopes: Option<Arc<crate::ScopeNames>>,
    /// The un-paginated `tools/list` result, serialized once (see [`ToolServer::cached_list`]).
    list_json: Option<Arc<String>>,
}

impl ToolServer {
    pub(crate) fn new(
        registry: &'static Registry,
        implementation: Implementation,
        policy: Policy,
        page_size: usize,
        states: StateMap,
        sync: SyncLimit,
    ) -> Self {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        let info = ServerConfig::new(capabilities).with_server_info(implementation);
        let mut offered = Vec::with_capacity(registry.tools().len());
        offered.extend(
            registry
                .tools()
                .iter()
                .filter(|t| policy.allows(t).is_ok())
                .map(|t| t.mcp_tool().clone()),
        );
        let (offered, list_json) = serialized_list(offered, page_size);
        ToolServer {
            registry,
            info: Arc::new(info),
            cursor_scope: search::scope_of(("tools/list", &policy)),
            policy: Arc::new(policy),
            offered: Arc::new(offered),
            page_size,
            states,
            level: SessionLevel::default(),
            notices: None,
            sync,
            #[cfg(feature = "http")]
            in_flight: Arc::default(),
            #[cfg(feature = "auth")]
            scopes: None,
            list_json,
        }
    }

    fn list(&self, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        if cursor.is_none() && self.offered.len() <= self.page_size {
            return Ok(ListToolsResult::with_all_items(
                self.offered.as_ref().clone(),
            ));
        }
        self.page(self.offered.iter().collect(), cursor)
    }

    /// The page of `all` that `cursor` points at.
    pub(super) fn page(
        &self,
        all: Vec<&Tool>,
        cursor: Option<&str>,
    ) -> Result<ListToolsResult, ErrorData> {
        let invalid = |err: SearchError| ErrorData::invalid_params(err.to_string(), None);
        let start = match cursor {
            Some(cursor) => search::decode_cursor(self.cursor_scope, cursor).map_err(invalid)?,
            None => 0,
        };
        let (page, next) =
            search::paginate(&all, start, self.page_size, self.cursor_scope).map_err(invalid)?;
        let mut result = ListToolsResult::with_all_items(page.into_iter().cloned().collect());
        result.next_cursor = next;
        Ok(result)
    }

    /// The tool a call names, or the answer to a call of a tool that is not offered (the
    /// fast path resolves the tool before it runs the call).
    pub(crate) fn lookup(
        &self,
        name: &str,
    ) -> Result<&'static ToolInfo, Box<Result<CallToolResult, ErrorData>>> {
        match self.offered_tool(name) {
            Ok(Some(tool)) => Ok(tool),
            Ok(None) => Err(Box::new(Err(dispatch::unknown_tool(name)))),
            Err(why) => Err(Box::new(Ok(dispatch::error_result(
                ErrorKind::Refused,
                why,
            )))),
        }
    }

    /// Runs a call of `tool`, which the policy offers, as `setup` says. Not an `async fn`:
    /// the call's context is made here, and the future returned is the dispatch itself, so
    /// that neither the setup nor the context is copied into another future's state.
    pub(crate) fn run(
        &self,
        tool: &'static ToolInfo,
        arguments: Option<JsonObject>,
        cancelled: CancellationToken,
        setup: CallSetup,
    ) -> impl Future<Output = CallToolResult> + Send + '_ {
        let call = CallContext::new(
            tool.name(),
            self.states.clone(),
            // The call's own token (a per-request token, from rmcp or the fast path): a
            // timeout cancels it to stop a sync tool, which concerns nothing else.
            cancelled.clone(),
            setup.sink.or_else(|| self.notices.clone()),
            setup.progress,
            setup.level.unwrap_or_else(|| self.level.clone()),
            setup.caller,
        );
        dispatch::run(tool, arguments, call, cancelled, &self.sync)
    }

    /// The `tools/list` result for clients before 2026-07-28 (rmcp's `ListToolsResult`),
    /// serialized once: `None` when the list is paginated.
    pub(crate) fn cached_list(&self) -> Option<&Arc<String>> {
        self.list_json.as_ref()
    }

    /// A handler for another session: the same tools, its own log level.
    #[cfg(feature = "http")]
    pub(crate) fn for_session(&self) -> ToolServer {
        ToolServer {
            level: SessionLevel::default(),
            ..self.clone()
        }
    }

    /// The limit of sync tool calls, which also runs async tools known to block.
    pub(crate) fn sync(&self) -> &SyncLimit {
        &self.sync
    }

    /// The tool `name` if the policy offers it; why not otherwise.
    fn offered_tool(&self, name: &str) -> Result<Option<&'static ToolInfo>, String> {
        let Some(tool) = self.registry.get(name) else {
            return Ok(None);
        };
        self.policy
            .allows(tool)
            .map(|()| Some(tool))
            .map_err(|why| why.to_string())
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        (*self.info).clone()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        #[cfg(feature = "auth")]
        if let Some(scopes) = &self.scopes {
            return self.list_for(scopes, &caller_of(&context), cursor);
        }
        let _ = &context;
        self.list(cursor)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let meta = &context.meta;
        let progress = meta.get_progress_token();
        // A request that carries its revision (2026-07-28) carries its log level too; without
        // one, no log message may be sent for it.
        let level = meta
            .protocol_version()
            .map(|_| SessionLevel::fixed(meta.log_level().map(LogLevel::from_wire)));
        let tool = match self.lookup(&request.name) {
            Ok(tool) => tool,
            Err(answer) => return (*answer).map(Into::into),
        };
        // Over HTTP, the call's notifications go through its request's peer, and leave
        // before its result.
        #[cfg(feature = "http")]
        let request_scope = super::peer::RequestScope::enter(self, &context);
        #[cfg(feature = "http")]
        let sink = request_scope.sink();
        #[cfg(not(feature = "http"))]
        let sink = None;
        let caller = caller_of(&context);
        #[cfg(feature = "auth")]
        if let Some(refused) = self.refuse(tool, &caller) {
            return Err(refused);
        }
        let setup = CallSetup {
            progress,
            level,
            sink,
            caller,
        };
        let start = std::time::Instant::now();
        let result = self.run(tool, request.arguments, context.ct, setup).await;
        tracing::debug!(
            tool = tool.name(),
            is_error = result.is_error == Some(true),
            duration_us = start.elapsed().as_micros() as u64,
            "tools/call"
        );
        #[cfg(feature = "http")]
        request_scope.finish().await;
        Ok(result.into())
    }

    #[allow(deprecated)] // MCP logging: deprecated in rmcp (SEP-2577), still in 2025-11-25.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.level.set(LogLevel::from_wire(request.level));
        Ok(())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        match self.offered_tool(name) {
            Ok(Some(tool)) => Some(tool.mcp_tool().clone()),
            _ => None,
        }
    }
}

/// A call counted in flight until this is dropped: a graceful stop waits until none is left.
#[cfg(feature = "http")]
pub(crate) struct InFlight(Arc<std::sync::atomic::AtomicUsize>);

#[cfg(feature = "http")]
impl InFlight {
    /// Counts a call of `server` from now on.
    pub(crate) fn count(server: &ToolServer) -> Self {
        server
            .in_flight
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        InFlight(server.in_flight.clone())
    }
}

#[cfg(feature = "http")]
impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// Who sent the request: the caller the HTTP transport authenticated, else the local user.
fn caller_of(context: &RequestContext<RoleServer>) -> Caller {
    #[cfg(feature = "http")]
    if let Some(caller) = context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Caller>())
    {
        return caller.clone();
    }
    let _ = context;
    Caller::anonymous()
}

/// rmcp's `ListToolsResult` of `tools`, serialized once when one page holds them all (in the
/// shape of revisions before 2026-07-28); the tools come back out of it, not cloned.
fn serialized_list(tools: Vec<Tool>, page_size: usize) -> (Vec<Tool>, Option<Arc<String>>) {
    if tools.len() > page_size {
        return (tools, None);
    }
    let mut result = ListToolsResult::with_all_items(tools);
    result.result_type = None;
    // Sized up front: growing a 100 KB buffer by doubling copies it several times over.
    let mut json = Vec::with_capacity(64 + 512 * result.tools.len());
    let list = serde_json::to_writer(&mut json, &result)
        .ok()
        .and_then(|()| String::from_utf8(json).ok())
        .map(Arc::new);
    (result.tools, list)
}
