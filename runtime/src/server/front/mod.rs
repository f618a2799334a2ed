//! The front: what every request reaches, whichever way it came in. [`Core`] is what every
//! session of one server shares (the call pipeline, what the server says of itself, its
//! lists, its subscriptions); [`Front`] is one session's way into it (its log level, its
//! channel to the client, its part in the subscriptions). One function, [`Front::answer`]
//! (`answer.rs`), answers every request a fast path reads: the stdio and HTTP sessions
//! (`session/`) keep only their framing, and rmcp's `ServerHandler` (`adapter/`) is one
//! more caller. Sessions and the adapter import the front, never each other.

// rmcp marks MCP logging deprecated (SEP-2577); protocol 2025-11-25 still has it, and
// `ClientLog` honours it.
#![allow(deprecated)]

mod answer;
pub(crate) mod encode;
mod list;
mod measure;
#[cfg(feature = "http")]
pub(crate) mod notices;
mod session_end;

#[cfg(feature = "http")]
pub(crate) use crate::server::call::lost;
// What rmcp's handler (`adapter/`) answers resources, prompts and subscriptions with.
pub(crate) use crate::server::call::read::resource_not_found;
pub(crate) use crate::server::call::{CallReply, CallSetup, Way};
pub(crate) use crate::server::catalog::Scopes;
pub(crate) use crate::server::subscriptions::{
    MAX_SUBSCRIBED_URI, MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTIONS_TOTAL, Refused,
};
pub(crate) use answer::{Answer, Asked, Reply};

use std::sync::Arc;

use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};

use super::call::Pipeline;
use super::catalog::{Catalog, Catalogs};
use super::subscriptions::Subscriptions;
use crate::context::{ClientChannel, SessionLevel};

/// What every session of one server shares, made once (`Server::handler_with`): the call
/// pipeline, what the server says of itself, its lists, who subscribed to what. A session's
/// handler ([`Front`]) holds it by one reference count, and reads it through `Deref`;
/// nothing writes it after it is made.
pub(crate) struct Core {
    /// What every call runs through.
    pub(crate) pipeline: Pipeline,
    pub(crate) info: ServerConfig,
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
    pub(crate) transport: crate::request::Transport,
    /// `initialize`'s answers, made once each (`answer.rs`).
    handshakes: answer::Handshakes,
}

/// One session's handler, as rmcp's service and the fast paths drive it: the server's
/// [`Core`], and what is the session's own (its log level, its channel for the tools'
/// notifications, its part in the subscriptions). Every request about tools is answered
/// from the registry as it is then (its [`Catalog`]), every call through the pipeline.
#[derive(Clone)]
pub(crate) struct Front {
    core: Arc<Core>,
    /// The session's log level (`logging/setLevel`).
    pub(crate) level: SessionLevel,
    /// Where the tools' notifications go: straight to the transport, so that they keep their
    /// order before the response and are not lost when the input has already closed.
    pub(crate) notices: Option<Arc<dyn ClientChannel>>,
    /// This session's part in the subscriptions (dropped with its last handler).
    pub(crate) session: Arc<crate::server::subscriptions::SessionGuard>,
    /// What ends with this session's last handler.
    pub(crate) ends: Arc<session_end::SessionEnd>,
}

impl std::ops::Deref for Front {
    type Target = Core;

    fn deref(&self) -> &Core {
        &self.core
    }
}

/// Numbers sessions for their subscriptions.
static SESSIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_session() -> u64 {
    SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Front {
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
        offered(
            &current,
            &mut capabilities,
            http_sessions != Some(false),
            live,
        );
        let mut info = ServerConfig::new(capabilities).with_server_info(identity.implementation);
        info.instructions = identity.instructions;
        let subscriptions: Arc<Subscriptions> = Arc::default();
        if live {
            let listener: Arc<dyn crate::registry::Listener> = subscriptions.clone();
            registry.listen(Arc::downgrade(&listener));
        }
        let updates = (live || !current.resources().is_empty())
            .then(|| subscriptions.clone() as Arc<dyn crate::context::Updates>);
        let confirm = parts.confirm;
        let pipeline = Pipeline::new(parts, updates);
        let catalogs = Arc::new(Catalogs::new(
            registry.clone(),
            policy,
            confirm,
            page_size,
            pipeline.tool_search.clone(),
        ));
        let id = next_session();
        let session = Arc::new(crate::server::subscriptions::SessionGuard::new(
            id,
            subscriptions.clone(),
        ));
        let core = Core {
            info,
            pipeline,
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
            handshakes: answer::handshakes(),
        };
        let ends = Arc::new(session_end::SessionEnd::new(id, &core));
        Front {
            core: Arc::new(core),
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

    /// A handler for another session: the same tools, its own log level.
    #[cfg(feature = "http")]
    pub(crate) fn for_session(&self) -> Front {
        let id = next_session();
        Front {
            level: SessionLevel::default(),
            session: Arc::new(crate::server::subscriptions::SessionGuard::new(
                id,
                self.subscriptions.clone(),
            )),
            ends: Arc::new(session_end::SessionEnd::new(id, &self.core)),
            ..self.clone()
        }
    }

    /// This session's `initialize` agreed on `version` (a session the HTTP fast path opened;
    /// rmcp's go through the handler's `initialize`).
    #[cfg(feature = "http")]
    pub(crate) fn opened(&self, version: &rmcp::model::ProtocolVersion) {
        self.ends.agreed(version);
    }
}

/// Adds what is registered to `capabilities`: `resources` (with subscriptions when a
/// session can hear them), `prompts`, and `completions` when anything completes. A server
/// whose set can change (`live`) offers resources and prompts even while it has none, and
/// says that their lists change (as its tools' do: a 2026-07-28 listen stream hears it even
/// without sessions).
fn offered(
    registry: &crate::Registry,
    capabilities: &mut ServerCapabilities,
    sessions: bool,
    live: bool,
) {
    if live || !registry.resources().is_empty() {
        let mut resources = rmcp::model::ResourcesCapability::default();
        resources.subscribe = Some(sessions);
        resources.list_changed = Some(sessions || live);
        capabilities.resources = Some(resources);
    }
    if live || !registry.prompts().is_empty() {
        let mut prompts = rmcp::model::PromptsCapability::default();
        if live {
            prompts.list_changed = Some(true);
        }
        capabilities.prompts = Some(prompts);
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

/// Who a server says it is: its name and version, and the instructions it gives clients.
pub(crate) struct Identity {
    pub(crate) implementation: Implementation,
    pub(crate) instructions: Option<String>,
}
