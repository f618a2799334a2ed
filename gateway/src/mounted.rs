//! Connecting to an upstream: its tools mounted, the supervisor that keeps it running
//! started, and what the caller holds ([`Mounted`]).

use std::sync::{Arc, Mutex};

use rmcp::model::Implementation;
use tokio::sync::{mpsc, oneshot};
use toolsmith::{Registry, registry::RegistryHandle};

use crate::link::{Link, Served};
use crate::openapi::OpenApi;
use crate::pool::Pool;
use crate::proxied::Via;
use crate::relay::Relay;
use crate::resource_prompt_proxies;
use crate::session::{Credential, Listed};
use crate::supervise::Supervisor;
use crate::tools::Tools;
use crate::upstream::Way;
use crate::{Error, Upstream};

impl Upstream {
    /// Starts it (or reaches it), completes the handshake and lists its tools (every page).
    /// While the [`Mounted`] lives, an upstream that stops is started again (see there).
    pub async fn connect(self) -> Result<Mounted, Error> {
        if let Way::OpenApi(api) = &self.way {
            let api = api.clone();
            return self.connect_api(&api).await;
        }
        if self.is_per_caller() {
            return self.connect_per_caller().await;
        }
        let (tell, changed) = mpsc::unbounded_channel();
        let relay = Arc::new(Relay::default());
        let running = self.start(tell.clone(), relay.clone()).await?;
        let listed = self.list(&running).await?;
        let items = self.list_items(&running).await?;
        let findings = self.audit(&listed);
        let info = running
            .peer_info()
            .and_then(|info| info.server_info.clone());
        let link = Link::new(Arc::from(self.name.as_str()), running.peer().clone(), relay);
        let (tools, left_out) = self.mount(listed.clone(), &link)?;
        let names = tools.iter().map(|t| t.describe().about.name).collect();
        let names = Arc::new(Mutex::new(names));
        let served = Served::default();
        let (stop, stopped) = oneshot::channel();
        let supervisor = Supervisor {
            upstream: self.clone(),
            link: link.clone(),
            served: served.clone(),
            names,
            listed,
            items: items.clone(),
            changed,
            tell,
        };
        tokio::spawn(supervisor.run(running, stopped));
        tracing::info!(upstream = %self.name, command = %self.shown(), "upstream mounted");
        Ok(Mounted {
            upstream: self,
            tools,
            items,
            link: Some(link),
            findings,
            left_out,
            info,
            served,
            _stop: Some(stop),
        })
    }

    /// Its tools, listed in a session of the gateway's own (its own token, when it acts as
    /// each user; a child whose environment names no caller), then closed: each caller's
    /// calls go to a session of their own ([`Pool`]). Only its tools are served: its
    /// resources and prompts would be read as no one.
    async fn connect_per_caller(self) -> Result<Mounted, Error> {
        let own = match &self.acts_as {
            Some(acts_as) => acts_as.own_token(&self.name).await?,
            None => None,
        };
        let refusal = crate::identity::Refusal::default();
        let credential = Credential {
            bearer: own.map(|token| token.access),
            caller: Some(toolsmith::context::Caller::anonymous()),
            refusal: Some(refusal.clone()),
            without_headers: false,
        };
        let (tell, _) = mpsc::unbounded_channel();
        let listing = self
            .start_as(tell, Arc::new(Relay::default()), &credential)
            .await
            .map_err(|err| match refusal.take() {
                Some(_) => Error::Connect {
                    upstream: self.name.clone(),
                    why: "it refused the gateway's own credentials (401): the gateway lists an upstream's tools as itself, and calls them as each user; give it a token of its own to list with (`headers`), or a client that may get one (client credentials)".into(),
                },
                None => err,
            })?;
        let listed = self.list(&listing).await?;
        let findings = self.audit(&listed);
        let info = listing
            .peer_info()
            .and_then(|info| info.server_info.clone());
        let tasks = listing
            .peer_info()
            .is_some_and(|info| info.capabilities.supports_tasks());
        let items = self.list_items(&listing).await.unwrap_or_default();
        if !(items.resources.is_empty() && items.templates.is_empty() && items.prompts.is_empty()) {
            tracing::warn!(upstream = %self.name, "its resources and prompts are not served: it has a session per caller, and they would be read as no one");
        }
        drop(listing);
        let pool = Pool::new(self.clone());
        let via = listed
            .into_iter()
            .map(|tool| (tool, Via::PerCaller(pool.clone())))
            .collect();
        let (tools, left_out) = self.mount_via(via, tasks)?;
        tracing::info!(upstream = %self.name, command = %self.shown(), tools = tools.len(), "upstream mounted: a session per caller");
        Ok(Mounted {
            upstream: self,
            tools,
            items: Listed::default(),
            link: None,
            findings,
            left_out,
            info,
            served: Served::default(),
            _stop: None,
        })
    }

    /// An HTTP API's operations as tools: read from its document once (nothing to restart,
    /// no resources or prompts).
    async fn connect_api(self, api: &OpenApi) -> Result<Mounted, Error> {
        let failed = |why: String| Error::Api {
            upstream: self.name.clone(),
            why,
        };
        let operations = tokio::time::timeout(
            self.connect_timeout,
            api.load(&self.name, self.ca_file.as_deref()),
        )
        .await
        .map_err(|_| {
            failed(format!(
                "the document was not read within {:?}",
                self.connect_timeout
            ))
        })?
        .map_err(failed)?;
        let listed: Vec<rmcp::model::Tool> =
            operations.iter().map(|(tool, _)| tool.clone()).collect();
        let findings = self.audit(&listed);
        let via = operations
            .into_iter()
            .map(|(tool, endpoint)| (tool, Via::Api(endpoint)))
            .collect();
        let (tools, left_out) = self.mount_via(via, false)?;
        tracing::info!(upstream = %self.name, document = %api.document, tools = tools.len(), "HTTP API mounted");
        Ok(Mounted {
            upstream: self,
            tools,
            items: Listed::default(),
            link: None,
            findings,
            left_out,
            info: None,
            served: Served::default(),
            _stop: None,
        })
    }
}

/// A connected upstream: its tools, ready to be served.
///
/// The upstream runs as long as this value lives: keep it while serving. When it stops (a
/// child that exits, a connection lost), its tools answer an error result that names it and
/// says it is restarting, and it is started again after a wait that doubles with each failed
/// attempt (250 ms up to 30 s); the other upstreams keep answering. A read-only idempotent
/// call that the loss cut off is sent once more when the upstream is back (within the call
/// timeout, else 30 s); no other call is ever retried. With [`follow`](Mounted::follow), what
/// the restarted upstream lists is served from then on (clients hear `list_changed`).
pub struct Mounted {
    upstream: Upstream,
    tools: Tools,
    /// Its resources, templates and prompts as listed at connect, and what reads them.
    items: Listed,
    /// An MCP upstream's link (an HTTP API has none).
    link: Option<Arc<Link>>,
    findings: Vec<toolsmith_audit::Finding>,
    left_out: Vec<String>,
    info: Option<Implementation>,
    served: Served,
    /// Dropped with this value: the supervisor stops, and the upstream with it.
    _stop: Option<oneshot::Sender<()>>,
}

impl Mounted {
    /// Its tools as a registry, each under the upstream's prefix, with the resources,
    /// resource templates and prompts it listed at connect (a prompt's name prefixed; a
    /// resource keeps its URI, its name prefixed; a read or a get goes to the upstream):
    /// serve it with [`Server::with_registry`](toolsmith::Server::with_registry), or merge it
    /// with others (a name or a URI in two is an error naming it). (A tool whose prefixed name
    /// MCP does not allow, or whose schema is not an object schema, was left out at connect,
    /// with a warning.)
    pub fn registry(&self) -> Result<Registry, Error> {
        let mut registry = self.upstream.registry_of(&self.tools)?;
        let prefix = self.upstream.tool_prefix();
        if let Some(link) = &self.link {
            resource_prompt_proxies::serve(&mut registry, &self.items, &prefix, link)
                .map_err(Error::Tools)?;
        }
        // An upstream that signs its users in: `{prefix}sign_out` beside its tools.
        #[cfg(feature = "upstream-signin")]
        if let Some(client) = self.upstream.sign_in_client() {
            let sign_out = crate::identity::signin::SignOut::new(&prefix, client.clone());
            registry.add_tool(sign_out).map_err(Error::Tools)?;
        }
        Ok(registry)
    }

    /// Serve what the upstream lists after a restart in `handle`'s registry (the server's
    /// [`registry_handle`](toolsmith::Server::registry_handle)), in place of its tools as
    /// they were: overrides and the pin apply to the new list too. Once; later calls are
    /// ignored.
    ///
    /// ```no_run
    /// # async fn f() -> Result<(), Box<dyn std::error::Error>> {
    /// let notes = toolsmith_gateway::Upstream::stdio("notes", "notes-server").connect().await?;
    /// let server = toolsmith::Server::with_registry(notes.registry()?);
    /// notes.follow(server.registry_handle());
    /// server.serve_stdio().await?;
    /// # Ok(()) }
    /// ```
    pub fn follow(&self, handle: RegistryHandle) {
        let _ = self.served.set(handle);
    }

    /// What `toolsmith audit` finds in its tools as it listed them (also logged at connect:
    /// errors and warnings as warnings).
    pub fn findings(&self) -> &[toolsmith_audit::Finding] {
        &self.findings
    }

    /// The tools left out, by their upstream names: by [`Upstream::strict_hints`], and those
    /// that cannot be served (an input schema that does not compile: the arguments of every
    /// call are checked against it), each with a warning.
    pub fn left_out(&self) -> &[String] {
        &self.left_out
    }

    /// The upstream as configured.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// The name and version the upstream gave at the handshake.
    pub fn server_info(&self) -> Option<Implementation> {
        self.info.clone()
    }
}

impl std::fmt::Debug for Mounted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mounted")
            .field("upstream", &self.upstream.name)
            .field("tools", &self.tools.len())
            .finish()
    }
}
