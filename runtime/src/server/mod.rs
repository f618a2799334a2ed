//! Serving: the [`Server`] builder with its settings (each default a `Server::DEFAULT_*`
//! constant beside its setter), which tools it offers ([`Policy`], refused with a
//! [`Refusal`]), which calls ask the user first ([`Confirm`]), and [`serve_stdio`], a server
//! with the defaults.

// Serving the registry, by concern:
// - the `Server` builder (`builder.rs`; `http.rs` for its HTTP settings, `defaults.rs` for
//   the defaults) and its entry points (here);
// - `call/`: the call pipeline every way in runs (the steps, the engine, the pool);
// - `front/`: what every request reaches, whichever way it came in: what every session
//   shares (`Core`), one session's way into it (`Front`), and the one function that answers
//   every request a fast path reads (`answer.rs`: a call's first step in place, the rest in
//   a task or on the pool), `tools/list` (`list.rs`), an answer's JSON (`encode.rs`);
// - `session/`: sessions by transport, their framing only (stdio with its channel to the
//   client, HTTP's fast path), and what a session keeps (`lifecycle.rs`);
// - `adapter/`: rmcp's `ServerHandler`, one more caller of the front (and, over HTTP, a
//   call's channel through its request's peer); `catalog.rs`: what the server answers
//   about one snapshot of its tool set, made again when the set changes;
// - `policy.rs`: which tools are offered; `access.rs`: authorization by scope; `check.rs`:
//   the states the tools need.

#[cfg(feature = "auth")]
mod access;
mod adapter;
mod builder;
mod call;
mod catalog;
mod check;
mod confirm;
mod defaults;
mod front;
#[cfg(feature = "http")]
mod http;
mod local;
#[cfg(feature = "metrics")]
mod metrics;
mod policy;
mod session;
mod subscriptions;
mod tasks;
mod tool_search;

#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use crate::transport::http::Serving;
pub use builder::Server;
pub(crate) use builder::{DEFAULT_BUSY_POLL, DEFAULT_MAX_SYNC_CALLS, DEFAULT_TOOLS_LIST_PAGE_SIZE};
pub(crate) use call::seal::DEFAULT_STATE_TTL;
/// The `_meta` key of a task's last progress in `tasks/get`.
#[cfg(feature = "testing")]
pub(crate) use call::task::PROGRESS_META as TASK_PROGRESS_META;
pub(crate) use catalog::DEFAULT_LIST_TTL;
pub use confirm::{Confirm, UnknownConfirm};
pub use policy::{Policy, Refusal};

use std::future::Future;
use std::pin::Pin;

use rmcp::model::Implementation;

use crate::transport::DEFAULT_MAX_LINE;
use crate::{Error, Registry};
use call::pool::CallPool;
use call::{CallSetup, Way};
use front::Front;
use session::stdio::serve;

/// What a way in decides before its server is made, so that nothing is set on the server
/// afterwards: whether an HTTP endpoint keeps sessions, the scopes a guarded one decides
/// calls by, the metrics the pipeline records into.
#[derive(Default)]
pub(crate) struct WayInSettings {
    /// Over HTTP: whether sessions are kept (`--sessions`); `None` for a session of its own
    /// (stdio, the test client).
    pub(crate) sessions: Option<bool>,
    pub(crate) scopes: Option<std::sync::Arc<crate::tool::ScopeNames>>,
    pub(crate) metrics: Option<crate::metrics::Metrics>,
}

impl WayInSettings {
    /// An HTTP endpoint's, sessions kept or not.
    #[cfg(feature = "http")]
    // The other fields are there with their features.
    #[allow(clippy::needless_update)]
    pub(crate) fn http(sessions: bool) -> WayInSettings {
        WayInSettings {
            sessions: Some(sessions),
            ..WayInSettings::default()
        }
    }
}

impl Server {
    /// The name and version the server gives in its handshake: those set with
    /// [`Server::info`], else `registry`'s (see [`implementation`]).
    #[cfg_attr(not(feature = "bundle"), allow(dead_code))]
    pub(crate) fn identity(&self, registry: &Registry) -> (String, String) {
        match &self.implementation {
            Some((name, version)) => (name.clone(), version.clone()),
            None => {
                let made = implementation(registry);
                (made.name, made.version)
            }
        }
    }

    /// Serves over stdio until stdin closes. Logs go to stderr.
    ///
    /// ```no_run
    /// # async fn f() -> Result<(), toolsmith::Error> {
    /// toolsmith::Server::new().serve_stdio().await
    /// # }
    /// ```
    pub async fn serve_stdio(self) -> Result<(), Error> {
        self.serve_stdio_boxed().await
    }

    /// The work of [`Server::serve_stdio`] behind a type-erased future: the serving machinery
    /// (rmcp's service loop, the transport, the handler) is compiled once, in this crate,
    /// instead of again in every crate that awaits it.
    pub(crate) fn serve_stdio_boxed(self) -> ServeFuture {
        Box::pin(async move {
            crate::logging::init();
            let max_line = self.max_line.unwrap_or(DEFAULT_MAX_LINE);
            let busy_poll = self.busy_poll.unwrap_or(DEFAULT_BUSY_POLL);
            let fast = !self.no_fast_path;
            #[cfg_attr(not(feature = "metrics"), allow(unused_mut))]
            let mut way_in = WayInSettings::default();
            // Its listener stops when serving ends.
            #[cfg(feature = "metrics")]
            let _metrics = match self.metrics.stdio(&self.served()?, self.is_live())? {
                Some((metrics, running)) => {
                    way_in.metrics = Some(metrics);
                    Some(running)
                }
                None => None,
            };
            let handler = self.handler_at(way_in)?;
            let registry = handler.pipeline.registry.current();
            tracing::info!(
                tools = handler.catalog().offered.len(),
                resources = registry.resources().len(),
                prompts = registry.prompts().len(),
                "serving MCP over stdio"
            );
            let (read, write) = crate::transport::stdio::take(busy_poll)?;
            let served = serve(handler, Box::new(read), Box::new(write), max_line, fast).await;
            // The last calls' spans leave before the process does.
            crate::trace::flush().await;
            served
        })
    }

    /// Serves on any async byte stream pair (an in-memory duplex in tests, a socket, ...)
    /// until the peer closes it. Input that ends before any request is a normal end.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    /// drop(client_end); // a client would talk here; closing it ends the session
    /// let (read, write) = tokio::io::split(server_end);
    /// let server = toolsmith::Server::with_registry(toolsmith::Registry::new());
    /// let outcome = server.serve_io(read, write).await;
    /// assert!(outcome.is_ok(), "input that ends before any request is a normal end");
    /// # }
    /// ```
    pub async fn serve_io<R, W>(self, read: R, write: W) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_streams(Box::new(read), Box::new(write), true)
            .await
    }

    /// [`Server::serve_io`] without the startup check of every tool's state (the test
    /// client): a call of a tool whose state is missing gets an error result saying so.
    #[cfg(feature = "testing")]
    pub(crate) async fn serve_on_unchecked<R, W>(self, read: R, write: W) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        self.serve_streams(Box::new(read), Box::new(write), false)
            .await
    }

    /// Serves a session on `read` and `write`, with every tool's state checked first
    /// (`checked`) or not (the test client). Not generic: compiled once, here.
    fn serve_streams(
        self,
        read: crate::transport::stdio::Input,
        write: crate::transport::stdio::Output,
        checked: bool,
    ) -> ServeFuture {
        let max_line = self.max_line.unwrap_or(DEFAULT_MAX_LINE);
        let fast = !self.no_fast_path;
        let handler = if checked {
            self.handler()
        } else {
            self.handler_unchecked()
        };
        match handler {
            Ok(handler) => serve(handler, read, write, max_line, fast),
            Err(err) => Box::pin(std::future::ready(Err(err))),
        }
    }

    /// Runs a call of tool `name` in-process (the `call` command), through the same call
    /// pipeline as a served call: the serving policy applies. There is no client: no
    /// notifications, no cancellation; `confirmed` is the person at the command line's yes
    /// (`call --yes`) to a tool that asks first.
    pub(crate) async fn call_local(
        &self,
        name: &str,
        arguments: rmcp::model::JsonObject,
        confirmed: bool,
    ) -> Result<rmcp::model::CallToolResult, Error> {
        // Without the startup check: a call of another tool needs no state this one lacks.
        let front = std::sync::Arc::new(self.clone().handler_unchecked()?);
        let mut params = rmcp::model::CallToolRequestParams::new(name.to_owned());
        params.arguments = Some(arguments);
        let setup = CallSetup {
            confirmed,
            ..CallSetup::default()
        };
        let asked = front::Asked::by(Way::Local, setup);
        let answer = front.call(params, asked).settled(&front).await;
        Ok(match answer {
            Ok(rmcp::model::CallToolResponse::Complete(result)) => result,
            Ok(_) => call::error_result(
                crate::error::ErrorKind::Failed,
                format!("tool '{name}' needs a client to complete"),
            ),
            Err(error) => {
                call::error_result(crate::error::ErrorKind::Failed, error.message.into_owned())
            }
        })
    }

    /// The handler of this server, once every tool's `State<T>` needs are met.
    pub(crate) fn handler(self) -> Result<Front, Error> {
        self.handler_at(WayInSettings::default())
    }

    /// [`Server::handler`], with the settings its way in decided (`way_in`).
    pub(crate) fn handler_at(self, way_in: WayInSettings) -> Result<Front, Error> {
        self.checked_registry()?;
        self.handler_with(true, way_in)
    }

    /// The handler of this server even when a tool's state is missing (the test client): a
    /// call of that tool is answered with an error result that names the state.
    pub(crate) fn handler_unchecked(self) -> Result<Front, Error> {
        self.handler_with(false, WayInSettings::default())
    }

    /// The handler, its pipeline made once from the finished configuration.
    fn handler_with(self, states_checked: bool, way_in: WayInSettings) -> Result<Front, Error> {
        let handle = self.served()?;
        let live = self.is_live();
        let registry = handle.current();
        if self.tool_search
            && let Some(taken) = [tool_search::SEARCH_TOOLS, tool_search::CALL_TOOL]
                .into_iter()
                .find(|name| registry.get(name).is_some())
        {
            return Err(Error::config(
                "tool search",
                format!(
                    "a tool is named {taken}, as search mode's own: rename it, or serve without --tool-search"
                ),
            ));
        }
        if registry.is_empty() && !live {
            tracing::warn!("{}", empty_registry_hint());
        }
        let implementation = match self.implementation {
            Some((name, version)) => Implementation::new(name, version),
            None => implementation(&registry),
        };
        let ttl = self.state_ttl.unwrap_or(DEFAULT_STATE_TTL);
        if ttl.is_zero() {
            return Err(Error::config(
                "state TTL",
                "a request state that expires at once refuses every confirmation: give a TTL above zero",
            ));
        }
        let seal = match &self.state_key {
            Some(key) => call::seal::Seal::with_key(key, ttl).map_err(|why| {
                Error::config(
                    "state key",
                    format!(
                        "{why}: give base64 of at least 32 random bytes (`openssl rand -base64 32`)"
                    ),
                )
            })?,
            None => call::seal::Seal::random(ttl).map_err(|why| Error::config("state key", why))?,
        };
        for (what, duration) in [
            ("task TTL", self.tasks.ttl),
            ("task lease", self.tasks.lease),
            ("task poll interval", self.tasks.poll),
        ] {
            if duration.is_some_and(|d| d.is_zero()) {
                return Err(Error::config(what, "give a duration above zero"));
            }
        }
        let mut layers = self.layers;
        let mut tasks = call::task::Tasks::new(&self.tasks);
        // A tool's `Store` is the store tasks are kept in: replicas sharing one share it.
        let mut states = self.states;
        states.insert(crate::context::Store::new(tasks.store.clone()));
        // A live set may gain a tool that has a limit.
        if live
            || registry
                .tools()
                .iter()
                .any(|t| t.max_concurrency().is_some())
        {
            // Innermost, after every layer of the program's: a call waits for a slot only
            // once nothing refuses it.
            let limit = crate::layer::ConcurrencyLimit::new();
            tasks.limit = Some(limit.clone());
            layers.push(std::sync::Arc::new(move |inner| {
                crate::layer::CallService::new(tower::Layer::layer(&limit, inner))
            }));
        }
        let parts = call::Parts {
            registry: handle,
            policy: std::sync::Arc::new(self.policy),
            states,
            states_checked,
            pool: CallPool::new(self.max_sync_calls.unwrap_or(DEFAULT_MAX_SYNC_CALLS)),
            seal,
            random_seal: self.state_key.is_none(),
            confirm: self.confirm,
            approvals: {
                // Grants live in a task store that keeps them, for every replica.
                if let Some(store) = &self.tasks.store {
                    self.approvals.grants.share(store.clone());
                }
                self.approvals
            },
            layers: call::layer::Layers::new(layers),
            tasks,
            scopes: way_in.scopes,
            metrics: way_in.metrics,
            tool_search: self.tool_search,
        };
        // A set that can change while serving is not to be kept: a client that does not hear
        // `list_changed` (no listen stream) would go on calling a removed tool.
        let list_ttl = self.list_ttl.unwrap_or(match live {
            true => std::time::Duration::ZERO,
            false => DEFAULT_LIST_TTL,
        });
        let identity = front::Identity {
            implementation,
            instructions: self.instructions,
        };
        let server = Front::new(
            parts,
            live,
            identity,
            self.page_size.unwrap_or(DEFAULT_TOOLS_LIST_PAGE_SIZE),
            list_ttl.as_millis().try_into().unwrap_or(u64::MAX),
            way_in.sessions,
        );
        warn_rerun(&registry);
        Ok(server)
    }
}

/// A tool that asks its client during a call runs again from its start on every answer at
/// 2026-07-28: what it changes before its last question is done again. Its hints say whether
/// that can matter (a read-only or idempotent tool repeats harmlessly); once per process. A
/// tool made at run time is left to its maker (a gateway's tool relays its upstream's
/// questions: the upstream ran nothing yet when it asks).
fn warn_rerun(registry: &Registry) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        for tool in registry.tools() {
            let hints = tool.hints();
            if tool.asks_client() && !tool.is_dynamic() && !hints.read_only && !hints.idempotent {
                tracing::warn!(
                    tool = tool.name(),
                    "this tool asks its client (Elicit, Sample) and is not idempotent: on \
                     2026-07-28 it runs again from its start with each answer, so it must ask \
                     before it changes anything"
                );
            }
        }
    });
}

/// The server's identity: the package that defines the tools, else the executable's name.
pub(crate) fn implementation(registry: &Registry) -> Implementation {
    match registry.main_package() {
        Some((name, version)) => Implementation::new(name, version),
        None => Implementation::new(executable_name(), "0.0.0"),
    }
}

/// A session being served, type-erased (see [`Server::serve_stdio_boxed`]).
pub(crate) type ServeFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

/// What to say when no tool is registered: most often, the tools live in a library that the
/// binary never links (nothing in `main.rs` names it, so the linker drops it).
pub(crate) fn empty_registry_hint() -> String {
    let library = executable_name().replace('-', "_");
    format!(
        "no tool is registered. If the tools live in a library (src/lib.rs) and main.rs never \
         names it, the library is not linked: add `use {library} as _;` (your library's name) \
         to main.rs"
    )
}

/// The executable's file name, for the command line and as a fallback server name.
pub(crate) fn executable_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "toolsmith-server".to_owned())
}

/// Serves every registered tool over stdio until stdin closes: [`Server::serve_stdio`] with
/// the defaults. This is the way to serve stdio from a `main` of your own; to also get the
/// command line (`tools`, `call`, `check`, `serve --read-only`, ...), call
/// [`run`](crate::run) instead.
///
/// Logs go to stderr (filter from the `TOOLSMITH_LOG` environment variable, e.g. `debug`, or
/// from `RUST_LOG` when it is unset; default `warn,toolsmith=info`); stdout carries protocol frames only. Two tools with one
/// name stop startup with [`Error::DuplicateTool`].
///
/// ```no_run
/// #[tokio::main]
/// async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
///     toolsmith::serve_stdio().await?;
///     Ok(())
/// }
/// ```
pub async fn serve_stdio() -> Result<(), Error> {
    Server::new().serve_stdio().await
}
