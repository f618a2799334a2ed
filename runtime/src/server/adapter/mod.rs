//! The adapter rmcp's service drives ([`ToolServer`], its `ServerHandler`): `tools/list`,
//! `tools/call` through the call pipeline, `logging/setLevel`. The fast paths hold the same
//! value, and run calls through the same pipeline. Over HTTP, a call on rmcp's path talks to
//! its client through its request's peer (`peer.rs`).

// rmcp marks MCP logging deprecated (SEP-2577); protocol 2025-11-25 still has it, and
// `ClientLog` honours it.
#![allow(deprecated)]

mod handler;
mod items;
mod measure;
#[cfg(feature = "http")]
mod peer;
mod session_end;

#[cfg(feature = "http")]
pub(crate) use peer::EventNotices;

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use std::future::Future;

use tokio_util::sync::CancellationToken;

use super::call::{CallReply, CallSetup, Pipeline, Way};
use super::catalog::{Catalog, Catalogs};
use super::subscriptions::Subscriptions;
use crate::context::Caller;
use crate::context::{ClientChannel, SessionLevel};

/// What every session of one server shares, made once (`Server::handler_with`): the call
/// pipeline, what the server says of itself, its lists, who subscribed to what. A session's
/// handler ([`ToolServer`]) holds it by one reference count, and reads it through `Deref`;
/// nothing writes it after it is made.
pub(crate) struct Hub {
    /// What every call runs through.
    pub(crate) pipeline: Pipeline,
    info: ServerConfig,
    /// What the server answers about its tool set, made again when the set changed.
    pub(crate) catalogs: Arc<Catalogs>,
    pub(crate) page_size: usize,
    /// Over HTTP: sessions are kept, so a request to the client can be answered.
    #[cfg(feature = "http")]
    pub(crate) sessions: bool,
    /// How long clients may keep the tool list (2026-07-28's `ttlMs`).
    pub(crate) list_ttl_ms: u64,
    /// The tool set can change while serving (a [`RegistryHandle`](crate::registry::RegistryHandle)
    /// was taken): sessions hear `notifications/tools/list_changed`.
    pub(crate) live: bool,
    /// Who hears about changes: resources, and the tool list.
    pub(crate) subscriptions: Arc<Subscriptions>,
    /// A handler is a session (stdio, HTTP with sessions): what is remembered for the
    /// session ([`Remember::Session`](crate::approve::Remember)) holds for its calls.
    keeps_sessions: bool,
    /// How requests reach it.
    transport: crate::request::Transport,
}

/// One session's handler, as rmcp's service and the fast paths drive it: the server's
/// [`Hub`], and what is the session's own (its log level, its channel for the tools'
/// notifications, its part in the subscriptions). Every request about tools is answered
/// from the registry as it is then (its [`Catalog`]), every call through the pipeline.
#[derive(Clone)]
pub(crate) struct ToolServer {
    hub: Arc<Hub>,
    /// The session's log level (`logging/setLevel`).
    level: SessionLevel,
    /// Where the tools' notifications go: straight to the transport, so that they keep their
    /// order before the response and are not lost when the input has already closed.
    pub(crate) notices: Option<Arc<dyn ClientChannel>>,
    /// This session's part in the subscriptions (dropped with its last handler).
    session: Arc<crate::server::subscriptions::SessionGuard>,
    /// What ends with this session's last handler.
    ends: Arc<session_end::SessionEnd>,
}

impl std::ops::Deref for ToolServer {
    type Target = Hub;

    fn deref(&self) -> &Hub {
        &self.hub
    }
}

/// Numbers sessions for their subscriptions.
static SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_session() -> u64 {
    SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl ToolServer {
    /// The server of the pipeline made of `parts` (`live`: its tool set may change while
    /// serving), reporting `identity`, listing `page_size` tools a page that clients
    /// may keep `list_ttl_ms`; over HTTP, with sessions kept or not (`http_sessions`).
    pub(crate) fn new(
        parts: super::call::Parts,
        live: bool,
        identity: Identity,
        page_size: usize,
        list_ttl_ms: u64,
        http_sessions: Option<bool>,
    ) -> Self {
        let registry = parts.registry.clone();
        let policy = parts.policy.clone();
        let current = registry.current();
        let builder = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging();
        // The tasks extension, when a tool it offers may run as a task.
        let tasks = current
            .tools()
            .iter()
            .any(|t| t.task() != crate::tool::TaskSupport::Never && policy.allows(t).is_ok());
        let mut capabilities = match tasks {
            true => builder.enable_tasks().build(),
            false => builder.build(),
        };
        if live && let Some(tools) = capabilities.tools.as_mut() {
            tools.list_changed = Some(true);
        }
        // Without sessions over HTTP, no notification can follow a request: the resources
        // capability says that subscriptions are not offered.
        items::capabilities(
            &current,
            &mut capabilities,
            http_sessions != Some(false),
            live,
        );
        let mut info = ServerConfig::new(capabilities).with_server_info(identity.implementation);
        info.instructions = identity.instructions;
        let catalogs = Arc::new(Catalogs::new(
            registry.clone(),
            policy,
            parts.confirm,
            page_size,
        ));
        let subscriptions: Arc<Subscriptions> = Arc::default();
        if live {
            let listener: Arc<dyn crate::registry::Listener> = subscriptions.clone();
            registry.listen(Arc::downgrade(&listener));
        }
        let updates = (live || !current.resources().is_empty())
            .then(|| subscriptions.clone() as Arc<dyn crate::context::Updates>);
        let id = next_session();
        let session = Arc::new(crate::server::subscriptions::SessionGuard::new(
            id,
            subscriptions.clone(),
        ));
        let hub = Hub {
            info,
            pipeline: Pipeline::new(parts, updates),
            catalogs,
            page_size,
            #[cfg(feature = "http")]
            sessions: http_sessions == Some(true),
            list_ttl_ms,
            live,
            subscriptions,
            keeps_sessions: http_sessions != Some(false),
            transport: match http_sessions {
                None => crate::request::Transport::Pipe,
                Some(_) => crate::request::Transport::Tcp,
            },
        };
        let ends = Arc::new(session_end::SessionEnd::new(id, &hub));
        ToolServer {
            hub: Arc::new(hub),
            level: SessionLevel::default(),
            notices: None,
            session,
            ends,
        }
    }

    /// What the server answers about its tool set now.
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        self.catalogs.now()
    }

    /// A method about resources is not found on a server without them (as rmcp answers).
    fn has_resources<M: rmcp::model::ConstString>(&self) -> Result<(), ErrorData> {
        match self.info.capabilities.resources {
            Some(_) => Ok(()),
            None => Err(ErrorData::method_not_found::<M>()),
        }
    }

    /// A method about prompts is not found on a server without them.
    fn has_prompts<M: rmcp::model::ConstString>(&self) -> Result<(), ErrorData> {
        match self.info.capabilities.prompts {
            Some(_) => Ok(()),
            None => Err(ErrorData::method_not_found::<M>()),
        }
    }

    /// A handler for another session: the same tools, its own log level.
    #[cfg(feature = "http")]
    pub(crate) fn for_session(&self) -> ToolServer {
        let id = next_session();
        ToolServer {
            level: SessionLevel::default(),
            session: Arc::new(crate::server::subscriptions::SessionGuard::new(
                id,
                self.subscriptions.clone(),
            )),
            ends: Arc::new(session_end::SessionEnd::new(id, &self.hub)),
            ..self.clone()
        }
    }

    /// This session's `initialize` agreed on `version` (a session the HTTP fast path opened;
    /// rmcp's go through the handler's `initialize`).
    #[cfg(feature = "http")]
    pub(crate) fn opened(&self, version: &rmcp::model::ProtocolVersion) {
        self.ends.agreed(version);
    }

    /// Runs one call through the pipeline, with this session's channel to its client and its
    /// log level unless the way in gave the call its own.
    pub(crate) fn call(
        &self,
        params: CallToolRequestParams,
        cancel: CancellationToken,
        setup: CallSetup,
        way: Way,
    ) -> impl Future<Output = CallReply> + Send + '_ {
        let setup = self.with_session(setup);
        self.pipeline.call(params, cancel, setup, way)
    }
}

/// Who a server says it is: its name and version, and the instructions it gives clients.
pub(crate) struct Identity {
    pub(crate) implementation: Implementation,
    pub(crate) instructions: Option<String>,
}

impl ToolServer {
    /// What a request on rmcp's path runs with (a call, a read, a prompt): its `_meta`, its
    /// caller, and its channel to the client. Over HTTP that is its request's peer, whose
    /// notifications must leave before the answer: await the [`Flush`] once it is made.
    fn setup_of(&self, context: &RequestContext<RoleServer>) -> (CallSetup, Flush) {
        // Over HTTP, the request's notifications go through its peer.
        #[cfg(feature = "http")]
        let peer = peer::PeerNotices::for_call(self, context);
        #[cfg(feature = "http")]
        let sink = peer.clone().map(|peer| peer as Arc<dyn ClientChannel>);
        #[cfg(not(feature = "http"))]
        let sink = None;
        let mut setup = CallSetup {
            sink,
            caller: caller_of(context),
            #[cfg(feature = "http")]
            trace: crate::trace::active()
                .then(|| context.extensions.get::<axum::http::request::Parts>())
                .flatten()
                .and_then(|parts| parts.extensions.get::<crate::trace::Handoff>())
                .cloned(),
            ..CallSetup::of_meta(&context.meta)
        };
        // Its session's revision, when measured (a request of 2026-07-28 carries its own).
        if setup.version.is_none() {
            setup.version = self.version_for(context);
        }
        #[cfg(feature = "http")]
        let flush = Flush(peer);
        #[cfg(not(feature = "http"))]
        let flush = Flush;
        (self.with_session(setup), flush)
    }

    /// `setup` with this session's channel and log level where the way in gave it none.
    fn with_session(&self, mut setup: CallSetup) -> CallSetup {
        if setup.sink.is_none() {
            setup.sink = self.notices.clone();
        }
        if setup.level.is_none() {
            setup.level = Some(self.level.clone());
        }
        if self.keeps_sessions {
            setup.session = Some(self.ends.id);
        }
        setup.transport = Some(self.transport);
        setup
    }
}

/// The notifications of a request on rmcp's path, to let leave before its answer.
#[cfg(feature = "http")]
struct Flush(Option<Arc<peer::PeerNotices>>);
#[cfg(not(feature = "http"))]
struct Flush;

impl Flush {
    /// Waits for the request's notifications to leave (over HTTP; at once otherwise).
    async fn done(self) {
        #[cfg(feature = "http")]
        if let Some(peer) = self.0 {
            peer.flush().await;
        }
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
