//! An upstream MCP server: how it is reached (a command started with only the environment
//! given, or a Streamable HTTP endpoint with only the headers given), connected to as rmcp's
//! client, and its tools listed and mounted.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use tokio::sync::{mpsc, oneshot};
use toolsmith::{Registry, RegistryHandle, Tool};

use crate::hears::{Hears, listen};
use crate::link::{Link, Running, Served, Supervisor};
use crate::overrides::{Confirmation, Override};
use crate::proxied::{Proxied, stated};
use crate::{Error, Overrides, Pin};

/// An upstream's tools, as served.
pub(crate) type Tools = Vec<Arc<dyn Tool>>;

/// How long an upstream may take to start and answer the handshake, by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// An upstream server, as configured: a stdio command and the environment it gets, or a
/// Streamable HTTP endpoint and the headers it gets; its name (and the prefix of its tools'
/// names).
///
/// ```
/// let notes = toolsmith_gateway::Upstream::stdio("notes", "python")
///     .arg("server.py")
///     .env("NOTES_DIR", "/srv/notes");
/// assert_eq!(notes.name(), "notes");
/// assert_eq!(notes.tool_prefix(), "notes_");
/// ```
#[derive(Clone)]
pub struct Upstream {
    name: String,
    way: Way,
    prefix: Option<String>,
    strict_hints: bool,
    overrides: Overrides,
    pin: Option<Pin>,
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
        Upstream::of(
            name.into(),
            Way::Stdio {
                program: program.into(),
                args: Vec::new(),
                env: Vec::new(),
            },
        )
    }

    /// The Streamable HTTP server at `url` (`http://` or `https://`), called `name`.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::http("tickets", "https://mcp.example.com/mcp")
    ///     .header("Authorization", "Bearer …");
    /// assert_eq!(up.tool_prefix(), "tickets_");
    /// ```
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Upstream::of(
            name.into(),
            Way::Http {
                url: url.into(),
                headers: Vec::new(),
            },
        )
    }

    fn of(name: String, way: Way) -> Self {
        Upstream {
            name,
            way,
            prefix: None,
            strict_hints: false,
            overrides: Overrides::new(),
            pin: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            call_timeout: None,
        }
    }

    /// One more argument of its command (a stdio upstream's; nothing for HTTP).
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("memory", "npx").arg("-y");
    /// # let _ = up;
    /// ```
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        if let Way::Stdio { args, .. } = &mut self.way {
            args.push(arg.into());
        }
        self
    }

    /// More arguments of its command.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("memory", "npx")
    ///     .args(["-y", "@modelcontextprotocol/server-memory"]);
    /// # let _ = up;
    /// ```
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, more: I) -> Self {
        if let Way::Stdio { args, .. } = &mut self.way {
            args.extend(more.into_iter().map(Into::into));
        }
        self
    }

    /// A variable of its environment (a stdio upstream's). It gets these and `PATH` only:
    /// never the gateway's own credentials or tokens.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("gh", "github-mcp").env("GITHUB_TOKEN", "…");
    /// # let _ = up;
    /// ```
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Way::Stdio { env, .. } = &mut self.way {
            env.push((key.into(), value.into()));
        }
        self
    }

    /// A header of every request to it (an HTTP upstream's): its own credentials. It gets
    /// these only: never a token a client sent the gateway.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::http("t", "https://a.example/mcp")
    ///     .header("Authorization", "Bearer …");
    /// # let _ = up;
    /// ```
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Way::Http { headers, .. } = &mut self.way {
            headers.push((name.into(), value.into()));
        }
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

    /// Whether a tool that leaves one of the four hints unstated is left out (with a warning
    /// naming it and the hints), instead of served with the specification's cautious
    /// defaults (default: served).
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("records", "python").strict_hints(true);
    /// # let _ = up;
    /// ```
    pub fn strict_hints(mut self, on: bool) -> Self {
        self.strict_hints = on;
        self
    }

    /// Corrections to its tools' hints, titles, tags, scopes and confirmation, by the names
    /// they are served under (see [`Overrides`]). A hint an override states counts as stated
    /// for [`strict_hints`](Upstream::strict_hints).
    ///
    /// ```
    /// let fixes = toolsmith_gateway::Overrides::from_toml(
    ///     "[tools.notes_delete_note]\ndestructive = true\nconfirm = \"Delete note {note_id}?\"\n",
    /// ).unwrap();
    /// let up = toolsmith_gateway::Upstream::stdio("notes", "python").overrides(fixes);
    /// # let _ = up;
    /// ```
    pub fn overrides(mut self, overrides: Overrides) -> Self {
        self.overrides = overrides;
        self
    }

    /// A reviewed snapshot its tools must still match (see [`Pin`]): applied to its
    /// [`registry`](Mounted::registry), and again to what it lists after a restart.
    ///
    /// ```
    /// let pin = toolsmith_gateway::Pin::new(toolsmith::Registry::new().snapshot());
    /// let up = toolsmith_gateway::Upstream::stdio("notes", "python").pin(pin);
    /// # let _ = up;
    /// ```
    pub fn pin(mut self, pin: Pin) -> Self {
        self.pin = Some(pin);
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

    /// Starts it (or reaches it), completes the handshake and lists its tools (every page).
    /// While the [`Mounted`] lives, an upstream that stops is started again (see there).
    pub async fn connect(self) -> Result<Mounted, Error> {
        let (tell, changed) = mpsc::unbounded_channel();
        let running = self.start(tell.clone()).await?;
        let listed = self.list(&running).await?;
        let findings = self.audit(&listed);
        let info = running
            .peer_info()
            .and_then(|info| info.server_info.clone());
        let link = Link::new(Arc::from(self.name.as_str()), running.peer().clone());
        let (tools, left_out) = self.mount(listed.clone(), &link)?;
        let names = tools.iter().map(|t| t.name().to_owned()).collect();
        let names = Arc::new(Mutex::new(names));
        let served = Served::default();
        let (stop, stopped) = oneshot::channel();
        let supervisor = Supervisor {
            upstream: self.clone(),
            link: link.clone(),
            served: served.clone(),
            names,
            listed,
            changed,
            tell,
        };
        tokio::spawn(supervisor.run(running, stopped));
        tracing::info!(upstream = %self.name, command = %self.shown(), "upstream mounted");
        Ok(Mounted {
            upstream: self,
            tools,
            findings,
            left_out,
            info,
            served,
            _stop: stop,
        })
    }

    /// Starts it (or reaches it) and completes the handshake, within the connect timeout;
    /// that its tools changed is sent to `changed`.
    pub(crate) async fn start(&self, changed: mpsc::UnboundedSender<()>) -> Result<Running, Error> {
        let info = Implementation::new("toolsmith-gateway", env!("CARGO_PKG_VERSION"));
        let config = Hears {
            info: ClientConfig::new(ClientCapabilities::default(), info),
            changed: changed.clone(),
        };
        let connecting = match &self.way {
            Way::Stdio { program, args, env } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).env_clear().envs(env.iter().cloned());
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
                tokio::time::timeout(self.connect_timeout, config.serve(child)).await
            }
            Way::Http { url, headers } => {
                let transport = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(self.header_map(headers)?);
                let transport = StreamableHttpClientTransport::from_config(transport);
                tokio::time::timeout(self.connect_timeout, config.serve(transport)).await
            }
        };
        match connecting {
            Ok(Ok(running)) => {
                listen(running.peer(), changed);
                Ok(running)
            }
            Ok(Err(err)) => Err(Error::Connect {
                upstream: self.name.clone(),
                why: err.to_string(),
            }),
            Err(_) => Err(Error::Connect {
                upstream: self.name.clone(),
                why: format!("no answer within {:?}", self.connect_timeout),
            }),
        }
    }

    /// Its tools, every page.
    pub(crate) async fn list(&self, running: &Running) -> Result<Vec<rmcp::model::Tool>, Error> {
        running.list_all_tools().await.map_err(|err| Error::List {
            upstream: self.name.clone(),
            why: err.to_string(),
        })
    }

    /// The tools of `listed`, as served (prefixed, corrected by the overrides, calling through
    /// `link`), and the upstream names of those `strict_hints` left out.
    pub(crate) fn mount(
        &self,
        listed: Vec<rmcp::model::Tool>,
        link: &Arc<Link>,
    ) -> Result<(Tools, Vec<String>), Error> {
        let upstream: Arc<str> = Arc::from(self.name.as_str());
        let prefix = self.tool_prefix();
        let mut left_out = Vec::new();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        for tool in listed {
            let served = format!("{prefix}{}", tool.name);
            let corrected = self.overrides.for_tool(&served);
            check_question(&tool, &served, &corrected)?;
            let unstated = unstated_hints(&tool, &corrected);
            if self.strict_hints && !unstated.is_empty() {
                tracing::warn!(
                    upstream = %self.name,
                    tool = %tool.name,
                    unstated = %unstated.join(", "),
                    "left out: it does not state every hint (--strict-hints)"
                );
                left_out.push(tool.name.to_string());
                continue;
            }
            let proxied = Proxied::new(
                tool,
                served,
                corrected,
                upstream.clone(),
                link.clone(),
                self.call_timeout,
            );
            tools.push(Arc::new(proxied));
        }
        Ok((tools, left_out))
    }

    /// `tools` as a registry, with the pin applied.
    pub(crate) fn registry_of(&self, tools: &[Arc<dyn Tool>]) -> Result<Registry, Error> {
        let mut registry = Registry::new();
        for tool in tools {
            registry.add_shared(tool.clone()).map_err(Error::Tools)?;
        }
        match &self.pin {
            Some(pin) => Ok(pin.apply(registry)?.0),
            None => Ok(registry),
        }
    }

    /// The audit's findings of `tools`, each logged as a warning (a note at debug level).
    fn audit(&self, tools: &[rmcp::model::Tool]) -> Vec<toolsmith_audit::Finding> {
        let listed: Vec<serde_json::Value> = tools
            .iter()
            .filter_map(|tool| serde_json::to_value(tool).ok())
            .collect();
        let findings = toolsmith_audit::audit(&listed);
        for finding in &findings {
            let tool = finding.tool.as_deref().unwrap_or("(the server)");
            let code = finding.rule.code;
            match finding.severity() {
                toolsmith_audit::Severity::Note => {
                    tracing::debug!(upstream = %self.name, tool, code, fix = %finding.fix, "{}", finding.message)
                }
                _ => {
                    tracing::warn!(upstream = %self.name, tool, code, fix = %finding.fix, "{}", finding.message)
                }
            }
        }
        findings
    }

    /// Its command line, or its URL.
    fn shown(&self) -> String {
        match &self.way {
            Way::Stdio { program, args, .. } => std::iter::once(program.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Way::Http { url, .. } => url.clone(),
        }
    }

    /// `headers` as rmcp's client sends them, or the error naming the one that cannot be.
    fn header_map(
        &self,
        headers: &[(String, String)],
    ) -> Result<HashMap<http::HeaderName, http::HeaderValue>, Error> {
        let mut map = HashMap::new();
        for (name, value) in headers {
            let bad = || Error::Connect {
                upstream: self.name.clone(),
                why: format!(
                    "the header {name:?} is not a valid HTTP header: fix its name or value"
                ),
            };
            let name = http::HeaderName::try_from(name.as_str()).map_err(|_| bad())?;
            let value = http::HeaderValue::try_from(value.as_str()).map_err(|_| bad())?;
            map.insert(name, value);
        }
        Ok(map)
    }
}

/// Its name, command line or URL and prefix: never its environment or headers (they hold
/// its credentials).
impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("name", &self.name)
            .field("at", &self.shown())
            .field("prefix", &self.tool_prefix())
            .finish_non_exhaustive()
    }
}

/// How an upstream is reached.
#[derive(Clone, Debug)]
enum Way {
    Stdio {
        program: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
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
    tools: Vec<Arc<dyn Tool>>,
    findings: Vec<toolsmith_audit::Finding>,
    left_out: Vec<String>,
    info: Option<Implementation>,
    served: Served,
    /// Dropped with this value: the supervisor stops, and the upstream with it.
    _stop: oneshot::Sender<()>,
}

impl Mounted {
    /// Its tools as a registry, each under the upstream's prefix: serve it with
    /// [`Server::with_registry`](toolsmith::Server::with_registry), or merge it with others
    /// (a name in two is an error naming both). An error when a prefixed name is not a
    /// valid MCP tool name, or an upstream schema is not an object schema.
    pub fn registry(&self) -> Result<Registry, Error> {
        self.upstream.registry_of(&self.tools)
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

    /// The tools left out by [`Upstream::strict_hints`], by their upstream names.
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

/// The hints `tool` leaves unstated (neither it nor an override says them), by their MCP
/// names.
fn unstated_hints(tool: &rmcp::model::Tool, corrected: &Override) -> Vec<&'static str> {
    let [read_only, destructive, idempotent, open_world] =
        stated(tool.annotations.as_ref(), corrected);
    [
        ("readOnlyHint", read_only.is_some()),
        // Meaningful only when it may write.
        (
            "destructiveHint",
            destructive.is_some() || read_only == Some(true),
        ),
        ("idempotentHint", idempotent.is_some()),
        ("openWorldHint", open_world.is_some()),
    ]
    .into_iter()
    .filter(|(_, stated)| !stated)
    .map(|(name, _)| name)
    .collect()
}

/// An override's confirmation question may name only arguments `tool` takes: an error naming
/// the placeholder and the arguments there are.
fn check_question(
    tool: &rmcp::model::Tool,
    served: &str,
    corrected: &Override,
) -> Result<(), Error> {
    let Some(Confirmation::Question(question)) = &corrected.confirm else {
        return Ok(());
    };
    let arguments: Vec<&str> = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut rest = question.replace("{{", "").replace("}}", "");
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return Err(Error::Overrides {
                tool: served.to_owned(),
                why:
                    "its confirmation question opens a `{` it never closes: write `{{` for a brace"
                        .into(),
            });
        };
        let name = rest[open + 1..open + close].trim().to_owned();
        if !arguments.contains(&name.as_str()) {
            return Err(Error::Overrides {
                tool: served.to_owned(),
                why: format!(
                    "its confirmation question names {{{name}}}, which is not one of its arguments ({})",
                    if arguments.is_empty() {
                        "it takes none".to_owned()
                    } else {
                        arguments.join(", ")
                    }
                ),
            });
        }
        rest = rest[open + close + 1..].to_owned();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ToolAnnotations;

    fn tool(annotations: Option<ToolAnnotations>) -> rmcp::model::Tool {
        let mut tool = rmcp::model::Tool::new("t", "A tool.", Arc::new(Default::default()));
        tool.annotations = annotations;
        tool
    }

    #[test]
    fn the_hints_a_tool_leaves_unstated_are_named() {
        let unstated_hints = |tool: &rmcp::model::Tool| unstated_hints(tool, &Override::default());
        assert_eq!(
            unstated_hints(&tool(None)),
            [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint"
            ]
        );
        let mut reads = ToolAnnotations::default();
        reads.read_only_hint = Some(true);
        reads.idempotent_hint = Some(true);
        // A read-only tool need not say whether it destroys.
        assert_eq!(unstated_hints(&tool(Some(reads))), ["openWorldHint"]);
        let mut writes = ToolAnnotations::default();
        writes.read_only_hint = Some(false);
        writes.idempotent_hint = Some(false);
        writes.open_world_hint = Some(false);
        assert_eq!(unstated_hints(&tool(Some(writes))), ["destructiveHint"]);
    }
}
