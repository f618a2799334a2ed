//! An upstream MCP server: how it is started (a command, with only the environment given),
//! connected to as rmcp's client, and its tools listed and mounted.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use toolsmith::{Registry, Tool};

use crate::Error;
use crate::proxied::Proxied;

/// How long an upstream may take to start and answer the handshake, by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// An upstream server, as configured: a stdio command, its name (and the prefix of its
/// tools' names), the environment it gets.
///
/// ```
/// let notes = toolsmith_gateway::Upstream::stdio("notes", "python")
///     .arg("server.py")
///     .env("NOTES_DIR", "/srv/notes");
/// assert_eq!(notes.name(), "notes");
/// assert_eq!(notes.tool_prefix(), "notes_");
/// ```
#[derive(Clone, Debug)]
pub struct Upstream {
    name: String,
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    prefix: Option<String>,
    connect_timeout: Duration,
    call_timeout: Option<Duration>,
}

impl Upstream {
    /// The stdio server `program` (found on `PATH` as a shell would), called `name`.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("memory", "npx");
    /// assert_eq!(up.name(), "memory");
    /// ```
    pub fn stdio(name: impl Into<String>, program: impl Into<String>) -> Self {
        Upstream {
            name: name.into(),
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            prefix: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            call_timeout: None,
        }
    }

    /// One more argument of its command.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("memory", "npx").arg("-y");
    /// # let _ = up;
    /// ```
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// More arguments of its command.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("memory", "npx")
    ///     .args(["-y", "@modelcontextprotocol/server-memory"]);
    /// # let _ = up;
    /// ```
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// A variable of its environment. It gets these and `PATH` only: never the gateway's
    /// own credentials or tokens.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("gh", "github-mcp").env("GITHUB_TOKEN", "…");
    /// # let _ = up;
    /// ```
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The prefix of its tools' names (default: its name and `_`); `""` keeps them as the
    /// upstream names them.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("gh", "github-mcp").prefix("github_");
    /// assert_eq!(up.tool_prefix(), "github_");
    /// ```
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// How long it may take to start and answer the handshake (default 30 s).
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("gh", "github-mcp")
    ///     .connect_timeout(std::time::Duration::from_secs(5));
    /// # let _ = up;
    /// ```
    pub fn connect_timeout(mut self, limit: Duration) -> Self {
        self.connect_timeout = limit;
        self
    }

    /// How long one of its calls may take (default: no limit); a call past it is an error
    /// result that names the upstream.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("gh", "github-mcp")
    ///     .call_timeout(std::time::Duration::from_secs(60));
    /// # let _ = up;
    /// ```
    pub fn call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = Some(limit);
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The prefix its tools are served under.
    pub fn tool_prefix(&self) -> String {
        self.prefix
            .clone()
            .unwrap_or_else(|| format!("{}_", self.name))
    }

    /// Starts it, completes the handshake and lists its tools (every page).
    pub async fn connect(self) -> Result<Mounted, Error> {
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&self.args)
            .env_clear()
            .envs(self.env.iter().cloned());
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        // Its stderr passes through: its own errors are the operator's to read.
        let (child, _) =
            TokioChildProcess::builder(command)
                .spawn()
                .map_err(|err| Error::Start {
                    upstream: self.name.clone(),
                    command: self.shown(),
                    why: err.to_string(),
                })?;
        let info = Implementation::new("toolsmith-gateway", env!("CARGO_PKG_VERSION"));
        let config = ClientConfig::new(ClientCapabilities::default(), info);
        let connecting = tokio::time::timeout(self.connect_timeout, config.serve(child));
        let client = match connecting.await {
            Ok(Ok(client)) => client,
            Ok(Err(err)) => {
                return Err(Error::Connect {
                    upstream: self.name.clone(),
                    why: err.to_string(),
                });
            }
            Err(_) => {
                return Err(Error::Connect {
                    upstream: self.name.clone(),
                    why: format!("no answer within {:?}", self.connect_timeout),
                });
            }
        };
        let listed = client.list_all_tools().await.map_err(|err| Error::List {
            upstream: self.name.clone(),
            why: err.to_string(),
        })?;
        let client = Arc::new(client);
        let upstream: Arc<str> = Arc::from(self.name.as_str());
        let prefix = self.tool_prefix();
        let tools = listed
            .into_iter()
            .map(|tool| {
                Arc::new(Proxied::new(
                    tool,
                    &prefix,
                    upstream.clone(),
                    client.clone(),
                    self.call_timeout,
                )) as Arc<dyn Tool>
            })
            .collect();
        tracing::info!(upstream = %self.name, command = %self.shown(), "upstream mounted");
        Ok(Mounted {
            upstream: self,
            tools,
            client,
        })
    }

    fn shown(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A connected upstream: its tools, ready to be served. The upstream runs as long as this
/// value or a registry of its tools lives.
pub struct Mounted {
    upstream: Upstream,
    tools: Vec<Arc<dyn Tool>>,
    client: Arc<RunningService<RoleClient, ClientConfig>>,
}

impl Mounted {
    /// Its tools as a registry, each under the upstream's prefix: serve it with
    /// [`Server::with_registry`](toolsmith::Server::with_registry), or merge it with others
    /// (a name in two is an error naming both). An error when a prefixed name is not a
    /// valid MCP tool name, or an upstream schema is not an object schema.
    pub fn registry(&self) -> Result<Registry, Error> {
        let mut registry = Registry::new();
        for tool in &self.tools {
            registry.add_shared(tool.clone()).map_err(Error::Tools)?;
        }
        Ok(registry)
    }

    /// The upstream as configured.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// The name and version the upstream gave at the handshake.
    pub fn server_info(&self) -> Option<Implementation> {
        self.client.peer_info()?.server_info.clone()
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
