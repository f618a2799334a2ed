//! The MCP server: rmcp's `ServerHandler` over the registry, served on stdio.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::registry::Registry;
use crate::{Error, dispatch};

/// The handler rmcp drives: every request about tools is answered from the registry.
#[derive(Clone)]
pub(crate) struct ToolServer {
    registry: &'static Registry,
    info: Arc<ServerConfig>,
}

impl ToolServer {
    pub(crate) fn new(registry: &'static Registry, implementation: Implementation) -> Self {
        let capabilities = ServerCapabilities::builder().enable_tools().build();
        let info = ServerConfig::new(capabilities).with_server_info(implementation);
        ToolServer {
            registry,
            info: Arc::new(info),
        }
    }
}

impl ServerHandler for ToolServer {
    fn get_info(&self) -> ServerConfig {
        (*self.info).clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.registry.mcp_tools().as_ref().clone(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        dispatch::call_tool(self.registry, &request.name, request.arguments)
            .await
            .map(CallToolResponse::from)
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.registry.get(name).map(|t| t.mcp_tool().clone())
    }
}

/// The server's identity: the package that defines the tools, else the executable's name.
pub(crate) fn implementation(registry: &Registry) -> Implementation {
    match registry.main_package() {
        Some((name, version)) => Implementation::new(name, version),
        None => {
            let name = std::env::current_exe()
                .ok()
                .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "toolsmith-server".to_owned());
            Implementation::new(name, "0.0.0")
        }
    }
}

/// Serves `handler` on a byte stream pair until the peer closes it.
pub(crate) async fn serve_on<R, W>(handler: ToolServer, read: R, write: W) -> Result<(), Error>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let running = handler
        .serve((read, write))
        .await
        .map_err(|err| Error::Initialize(err.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|err| Error::Task(err.to_string()))?;
    Ok(())
}

/// Serves every registered tool over stdio until stdin closes.
///
/// Logs go to stderr (filter from the `TOOLSMITH_LOG` environment variable, e.g. `debug`; default `warn,toolsmith=info`);
/// stdout carries protocol frames only. Two tools with one name stop startup with
/// [`Error::DuplicateTool`].
///
/// ```no_run
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
///     toolsmith::serve_stdio().await?;
///     Ok(())
/// }
/// ```
pub async fn serve_stdio() -> Result<(), Error> {
    crate::logging::init();
    let registry = crate::try_registry()?;
    let handler = ToolServer::new(registry, implementation(registry));
    tracing::info!(tools = registry.len(), "serving MCP over stdio");
    let (read, write) = rmcp::transport::stdio_pipes();
    serve_on(handler, read, write).await
}

/// Serves every registered tool on an in-memory or other async byte stream (tests, embedding).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), toolsmith::Error> {
/// let (client_end, server_end) = tokio::io::duplex(64 * 1024);
/// drop(client_end); // a client would talk here; closing it ends the session
/// let (read, write) = tokio::io::split(server_end);
/// let outcome = toolsmith::serve_on_stream(read, write).await;
/// assert!(outcome.is_err(), "no client sent initialize");
/// # Ok(()) }
/// ```
pub async fn serve_on_stream<R, W>(read: R, write: W) -> Result<(), Error>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let registry = crate::try_registry()?;
    serve_on(
        ToolServer::new(registry, implementation(registry)),
        read,
        write,
    )
    .await
}
