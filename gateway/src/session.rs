//! An upstream's session: started (a child spawned, or an endpoint reached) and its handshake
//! done within the connect timeout, then its tools, resources and prompts listed, and its
//! tools audited.

use std::collections::HashMap;
use std::sync::Arc;

use futures::FutureExt;
use rmcp::RoleClient;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, Peer};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use tokio::sync::mpsc;

use crate::link::Running;
use crate::listing::paged;
use crate::relay::Relay;
use crate::relaying_transport::RelayingTransport;
use crate::upstream::Way;
use crate::upstream_handler::{Changed, UpstreamHandler, listen};
use crate::{Error, Upstream};

/// Whose session it is, when not the gateway's own: a caller's token of the upstream's
/// (sent as `Authorization`, in place of a configured one), the caller (whom a child's
/// environment may name), and where a refused token is noted.
#[derive(Clone, Default)]
pub(crate) struct Credential {
    pub(crate) bearer: Option<String>,
    pub(crate) caller: Option<toolsmith::context::Caller>,
    pub(crate) refusal: Option<crate::identity::Refusal>,
    /// Whether the entry's `headers` are left out: they are the gateway's own credentials,
    /// never sent in a session that acts as a caller.
    pub(crate) without_headers: bool,
}

impl Credential {
    /// The value of `${caller.NAME}` in a child's environment: `id` a digest of the caller's
    /// identity (never empty, one per caller); `subject`, `email` as their token says (empty
    /// when it says none); `token` their token for the upstream. A subject or email that
    /// could leave a path (`/`, `\`, `..`, a control character) is refused.
    fn named(&self, name: &str) -> Option<Result<String, String>> {
        let caller = self.caller.as_ref()?;
        let value = match name {
            // The first 16 bytes of the digest: one per caller, short enough for a path.
            "id" => {
                return Some(Ok(
                    crate::identity::digest(caller.identity())[..32].to_owned()
                ));
            }
            "subject" => caller.subject().unwrap_or_default(),
            "email" => caller.email().unwrap_or_default(),
            "token" => return Some(Ok(self.bearer.clone().unwrap_or_default())),
            _ => return None,
        };
        if value.contains(['/', '\\'])
            || value.contains("..")
            || value.chars().any(char::is_control)
        {
            return Some(Err(format!(
                "the caller's {name} {:?} cannot be put in an environment that may name a path: use ${{caller.id}}",
                value.escape_debug().to_string()
            )));
        }
        Some(Ok(value.to_owned()))
    }
}

impl Upstream {
    /// Starts it (or reaches it) and completes the handshake, within the connect timeout;
    /// that its tools changed is sent to `changed`, what it says about a call to `relay`.
    pub(crate) async fn start(
        &self,
        changed: mpsc::UnboundedSender<Changed>,
        relay: Arc<Relay>,
    ) -> Result<Running, Error> {
        self.start_as(changed, relay, &Credential::default()).await
    }

    /// [`start`](Self::start), as `credential` says.
    pub(crate) async fn start_as(
        &self,
        changed: mpsc::UnboundedSender<Changed>,
        relay: Arc<Relay>,
        credential: &Credential,
    ) -> Result<Running, Error> {
        let info = Implementation::new("toolsmith-gateway", env!("CARGO_PKG_VERSION"));
        let upstream: Arc<str> = Arc::from(self.name.as_str());
        let config = UpstreamHandler {
            info: ClientConfig::new(asks(), info),
            changed: changed.clone(),
            relay: relay.clone(),
        };
        let connecting =
            match &self.way {
                Way::Stdio { program, args, env } => {
                    let mut command = tokio::process::Command::new(program);
                    command.args(args).env_clear();
                    for (key, value) in env {
                        let caller = |name: &str| credential.named(name);
                        let value = crate::secret::expand_with(value, &caller).map_err(|why| {
                            Error::Secret {
                                upstream: self.name.clone(),
                                why: format!("its environment variable {key}: {why}"),
                            }
                        })?;
                        command.env(key, value);
                    }
                    if let Some(path) = std::env::var_os("PATH") {
                        command.env("PATH", path);
                    }
                    // Its stderr passes through: its own errors are the operator's to read.
                    let (child, _) =
                        TokioChildProcess::builder(command).spawn().map_err(|err| {
                            Error::Start {
                                upstream: self.name.clone(),
                                command: self.shown(),
                                why: err.to_string(),
                            }
                        })?;
                    tokio::time::timeout(
                        self.connect_timeout,
                        config.serve_with_lifecycle(
                            RelayingTransport::new(child, upstream, relay),
                            lifecycle(self.discover),
                        ),
                    )
                    .await
                }
                Way::Http { url, headers } => {
                    let mut headers = match credential.without_headers {
                        true => HashMap::new(),
                        false => self.header_map(headers)?,
                    };
                    if let Some(bearer) = &credential.bearer {
                        let value = http::HeaderValue::try_from(format!("Bearer {bearer}"))
                            .map_err(|_| Error::Connect {
                                upstream: self.name.clone(),
                                why: "the caller's token is not a valid header value".into(),
                            })?;
                        headers.insert(http::header::AUTHORIZATION, value);
                    }
                    let transport = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                        .custom_headers(headers);
                    let lifecycle = lifecycle(self.discover);
                    let serving = match &credential.refusal {
                        Some(refusal) => {
                            let client = crate::identity::Watched {
                                client: self.http_client()?,
                                refusal: refusal.clone(),
                            };
                            let transport =
                                StreamableHttpClientTransport::with_client(client, transport);
                            let transport = RelayingTransport::new(transport, upstream, relay);
                            config.serve_with_lifecycle(transport, lifecycle).boxed()
                        }
                        None => {
                            let transport = StreamableHttpClientTransport::with_client(
                                self.http_client()?,
                                transport,
                            );
                            let transport = RelayingTransport::new(transport, upstream, relay);
                            config.serve_with_lifecycle(transport, lifecycle).boxed()
                        }
                    };
                    tokio::time::timeout(self.connect_timeout, serving).await
                }
                Way::OpenApi(_) => {
                    return Err(Error::Connect {
                        upstream: self.name.clone(),
                        why: "an HTTP API has no MCP session: it is mounted by its document".into(),
                    });
                }
            };
        match connecting {
            Ok(Ok(running)) => {
                listen(running.peer(), changed);
                Ok(running)
            }
            // The transport's own error, with its causes (an untrusted certificate), without
            // the transport's type name.
            Ok(Err(rmcp::service::ClientInitializeError::TransportError { error, context })) => {
                Err(Error::Connect {
                    upstream: self.name.clone(),
                    why: format!("{} ({context})", crate::told::transport(&*error.error)),
                })
            }
            Ok(Err(err)) => Err(Error::Connect {
                upstream: self.name.clone(),
                why: crate::told::without_urls(&crate::error::said(&err)),
            }),
            Err(_) => Err(Error::Connect {
                upstream: self.name.clone(),
                why: format!("no answer within {:?}", self.connect_timeout),
            }),
        }
    }

    /// Its resources, resource templates and prompts, every page (within the bounds of
    /// `listing.rs`), each kind only when its capabilities declare it.
    pub(crate) async fn list_items(&self, peer: &Peer<RoleClient>) -> Result<Listed, Error> {
        let capabilities = peer
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        let mut listed = Listed {
            completes: capabilities.completions.is_some(),
            ..Listed::default()
        };
        let (name, limit) = (self.name.as_str(), self.list_timeout);
        if capabilities.resources.is_some() {
            listed.resources = paged(name, "resources/list", limit, |params| async {
                let page = peer.list_resources(params).await?;
                Ok((page.resources, page.next_cursor))
            })
            .await?;
            listed.templates = paged(name, "resources/templates/list", limit, |params| async {
                let page = peer.list_resource_templates(params).await?;
                Ok((page.resource_templates, page.next_cursor))
            })
            .await?;
        }
        if capabilities.prompts.is_some() {
            listed.prompts = paged(name, "prompts/list", limit, |params| async {
                let page = peer.list_prompts(params).await?;
                Ok((page.prompts, page.next_cursor))
            })
            .await?;
        }
        Ok(listed)
    }

    /// Its tools, every page (within the bounds of `listing.rs`).
    pub(crate) async fn list(
        &self,
        peer: &Peer<RoleClient>,
    ) -> Result<Vec<rmcp::model::Tool>, Error> {
        paged(
            &self.name,
            "tools/list",
            self.list_timeout,
            |params| async {
                let page = peer.list_tools(params).await?;
                Ok((page.tools, page.next_cursor))
            },
        )
        .await
    }

    /// The audit's findings of `tools`, each logged as a warning (a note at debug level).
    pub(crate) fn audit(&self, tools: &[rmcp::model::Tool]) -> Vec<toolsmith_audit::Finding> {
        let listed: Vec<serde_json::Value> = tools
            .iter()
            .filter_map(|tool| serde_json::to_value(tool).ok())
            .collect();
        let findings = toolsmith_audit::audit(&listed);
        for finding in &findings {
            // What the upstream named, escaped: it reaches the operator's terminal.
            let tool = toolsmith_audit::shown(finding.tool.as_deref().unwrap_or("(the server)"));
            let message = toolsmith_audit::shown(&finding.message);
            let code = finding.rule.code;
            match finding.severity() {
                toolsmith_audit::Severity::Note => {
                    tracing::debug!(upstream = %self.name, tool = %tool, code, fix = %toolsmith_audit::shown(&finding.fix), "{message}")
                }
                _ => {
                    tracing::warn!(upstream = %self.name, tool = %tool, code, fix = %toolsmith_audit::shown(&finding.fix), "{message}")
                }
            }
        }
        findings
    }

    /// `headers` as rmcp's client sends them, or the error naming the one that cannot be.
    fn header_map(
        &self,
        headers: &[(String, String)],
    ) -> Result<HashMap<http::HeaderName, http::HeaderValue>, Error> {
        let mut map = HashMap::new();
        for (header, value) in headers {
            let bad = || Error::Connect {
                upstream: self.name.clone(),
                why: format!(
                    "the header {header:?} is not a valid HTTP header: fix its name or value"
                ),
            };
            let name = http::HeaderName::try_from(header.as_str()).map_err(|_| bad())?;
            let value = crate::secret::expand(value).map_err(|why| Error::Secret {
                upstream: self.name.clone(),
                why: format!("its header {header}: {why}"),
            })?;
            let value = http::HeaderValue::try_from(value.as_str()).map_err(|_| bad())?;
            map.insert(name, value);
        }
        Ok(map)
    }
}

/// An upstream's resources, resource templates and prompts, as it lists them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Listed {
    pub(crate) resources: Vec<rmcp::model::Resource>,
    pub(crate) templates: Vec<rmcp::model::ResourceTemplate>,
    pub(crate) prompts: Vec<rmcp::model::Prompt>,
    /// Whether it completes its prompts' arguments and templates' variables.
    pub(crate) completes: bool,
}

/// What the gateway declares it can answer: elicitation (forms and URLs) and sampling, each
/// question put to the client of the call that asks; and the tasks extension (an upstream's
/// task is followed to its end, see `followed.rs`).
fn asks() -> ClientCapabilities {
    let declared = serde_json::json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "extensions": {rmcp::model::TASKS_EXTENSION_ID: {}}
    });
    serde_json::from_value(declared).unwrap_or_default()
}

/// How a session with an upstream starts: with `initialize`; or, when it is to `discover`,
/// 2026-07-28's `server/discover` first (stateless over HTTP, its questions as
/// `input_required` answers, a listen stream for its list), an `initialize` handshake when
/// the upstream does not know it.
fn lifecycle(discover: bool) -> ClientLifecycleMode {
    if !discover {
        return ClientLifecycleMode::Initialize;
    }
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: None,
    }
}

impl Upstream {
    /// The HTTP client of an upstream over HTTP: its connections kept alive between calls (rmcp's
    /// default client opens one per request, which costs a handshake per call and leaves a
    /// socket in TIME-WAIT behind each), no redirect followed (the configured URL is the
    /// endpoint: a redirect would carry its credentials elsewhere), no delay on small writes,
    /// HTTPS trusting its `ca_file` beside the system's authorities.
    fn http_client(&self) -> Result<reqwest::Client, Error> {
        let failed = |why: String| Error::Connect {
            upstream: self.name.clone(),
            why,
        };
        crate::tls::builder(self.ca_file.as_deref())
            .map_err(failed)?
            .redirect(reqwest::redirect::Policy::none())
            .tcp_nodelay(true)
            .build()
            .map_err(|err| failed(format!("the HTTP client could not be built: {err}")))
    }
}
