//! Connecting to the server as a client (rmcp's), and listing its tools.

use std::collections::HashMap;
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, PaginatedRequestParams, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use toolsmith_audit::{Options, Report, Server};

/// `toolsmith audit`'s arguments.
#[derive(clap::Args, Debug)]
pub struct AuditArgs {
    /// The server's Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp (for a stdio
    /// server, give its command after `--` instead).
    #[arg(
        value_name = "URL",
        required_unless_present = "command",
        conflicts_with = "command"
    )]
    url: Option<String>,
    /// The stdio server's command and arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
    /// An HTTP header for every request, e.g. 'Authorization: Bearer TOKEN' (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    headers: Vec<String>,
    /// The protocol version to ask for, e.g. 2025-06-18 (default: rmcp's latest with an
    /// `initialize` handshake); 2026-07-28 and later connect with `server/discover`.
    #[arg(long, value_name = "VERSION")]
    protocol_version: Option<String>,
    /// Give up when the whole audit (connecting, listing, the rules, the report) has not
    /// finished within SECS; a stdio server it started is ended then.
    #[arg(long, value_name = "SECS", default_value = "60")]
    timeout: u64,
    /// Read at most N tools; a server that lists more gets a `listing-cut` finding.
    #[arg(long, value_name = "N", default_value = "10000")]
    max_tools: usize,
    #[command(flatten)]
    options: Options,
}

/// Runs the audit; returns the exit status (1 for a failing finding or a server that could
/// not be listed, 2 for bad arguments). `--timeout` bounds all of it; a stdio server it
/// started (its whole process group) is ended on every way out.
pub async fn audit(args: AuditArgs) -> u8 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(args.timeout);
    let too_late = || {
        eprintln!(
            "the audit did not finish within {} s; check that it is an MCP server, or raise --timeout",
            args.timeout
        );
        1
    };
    let mut group = None;
    let listed = tokio::time::timeout_at(deadline, list(&args, &mut group)).await;
    let (server, tools, cut) = match listed {
        Ok(Ok(listed)) => listed,
        Ok(Err(Failure::Usage(err))) => {
            eprintln!("{err}");
            return 2;
        }
        Ok(Err(Failure::Server(err))) => {
            eprintln!("{err}");
            return 1;
        }
        Err(_) => return too_late(),
    };
    drop(group);
    // The rules and the report run on a thread of their own, under the same deadline.
    let options = args.options.clone();
    let judged = tokio::task::spawn_blocking(move || {
        let mut report = Report::new(server, tools);
        if cut {
            report.cut_at(report.tools.len());
        }
        let mut out = Vec::new();
        let code = options.finish(report, &mut out);
        (code, out)
    });
    let (code, out) = match tokio::time::timeout_at(deadline, judged).await {
        Ok(Ok(judged)) => judged,
        Ok(Err(err)) => {
            eprintln!("the audit failed: {err}");
            return 1;
        }
        Err(_) => return too_late(),
    };
    use std::io::Write;
    let printed = std::io::stdout().lock().write_all(&out);
    match (code, printed) {
        (Ok(code), Ok(())) => code,
        (Err(err), _) | (_, Err(err)) => {
            eprintln!("cannot print the report: {err}");
            1
        }
    }
}

/// A stdio server's process group, ended when this is dropped: on success, on an error, on
/// the timeout, on a panic. The server and whatever it started go, so that nothing holds the
/// audit's stderr open after it.
pub(crate) struct Group(i32);

impl Drop for Group {
    fn drop(&mut self) {
        // SAFETY: killpg with a process group id this audit made (the child's own pid, as
        // its group leader); an already gone group gets ESRCH, which is ignored.
        unsafe {
            libc::killpg(self.0, libc::SIGTERM);
        }
        std::thread::sleep(Duration::from_millis(50));
        unsafe {
            libc::killpg(self.0, libc::SIGKILL);
        }
    }
}

/// Why a server could not be listed: the arguments (status 2), or the server (status 1).
pub(crate) enum Failure {
    Usage(String),
    Server(String),
}

fn version(args: &AuditArgs) -> Result<Option<ProtocolVersion>, Failure> {
    let Some(asked) = &args.protocol_version else {
        return Ok(None);
    };
    let known = ProtocolVersion::KNOWN_VERSIONS;
    match known.iter().find(|v| v.as_str() == asked) {
        Some(version) => Ok(Some(version.clone())),
        None => Err(Failure::Usage(format!(
            "--protocol-version {asked} is not a version rmcp speaks; choose one of {}",
            known
                .iter()
                .map(ProtocolVersion::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn headers(args: &AuditArgs) -> Result<HashMap<http::HeaderName, http::HeaderValue>, Failure> {
    let mut headers = HashMap::new();
    for header in &args.headers {
        let bad = |why: &str| {
            Failure::Usage(format!(
                "--header {header:?}: {why}; write it as 'Name: value'"
            ))
        };
        let (name, value) = header.split_once(':').ok_or_else(|| bad("no `:`"))?;
        let name = http::HeaderName::try_from(name.trim()).map_err(|_| bad("not a header name"))?;
        let value =
            http::HeaderValue::try_from(value.trim()).map_err(|_| bad("not a header value"))?;
        headers.insert(name, value);
    }
    Ok(headers)
}

/// The server's tools (at most `--max-tools`, and whether the listing was cut there); a
/// stdio server's process group goes to `group`.
async fn list(
    args: &AuditArgs,
    group: &mut Option<Group>,
) -> Result<(Server, Vec<Value>, bool), Failure> {
    let version = version(args)?;
    if let Some(url) = &args.url {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(Failure::Usage(format!(
                "{url} is not an http(s) URL; for a stdio server, give its command after `--`: toolsmith audit -- COMMAND [ARGS...]"
            )));
        }
        let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
            .custom_headers(headers(args)?);
        let client = connect(
            StreamableHttpClientTransport::from_config(config),
            version,
            url,
        )
        .await?;
        let listed = tools(&client, url, args.max_tools).await;
        let _ = client.cancel().await;
        return listed;
    }
    let (child, started) = spawn(&args.command)?;
    *group = started;
    let shown = args.command.join(" ");
    let client = connect(child, version, &shown).await?;
    let listed = tools(&client, &shown, args.max_tools).await;
    let _ = client.cancel().await;
    listed
}

/// Starts the stdio server `command` (a program and its arguments) in a process group of
/// its own, ended with all it started when the [`Group`] is dropped.
pub(crate) fn spawn(command: &[String]) -> Result<(TokioChildProcess, Option<Group>), Failure> {
    let (program, rest) = command.split_first().ok_or_else(|| {
        Failure::Usage("give a URL, or a stdio server's command after `--`".into())
    })?;
    let mut child = tokio::process::Command::new(program);
    child.args(rest);
    // A group of its own, to end it with all it started.
    child.process_group(0);
    let shown = command.join(" ");
    // The server's own stderr passes through: its errors are the user's to read.
    let (child, _) = TokioChildProcess::builder(child)
        .spawn()
        .map_err(|err| Failure::Server(format!("cannot start `{shown}`: {err}")))?;
    let group = child.id().map(|pid| Group(pid as i32));
    Ok((child, group))
}

/// A client of `transport` (named `target` in errors), at `version` or rmcp's latest.
pub(crate) async fn connect<T, E, A>(
    transport: T,
    version: Option<ProtocolVersion>,
    target: &str,
) -> Result<RunningService<RoleClient, ClientConfig>, Failure>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let info = Implementation::new("toolsmith-audit", env!("CARGO_PKG_VERSION"));
    let mut config = ClientConfig::new(ClientCapabilities::default(), info);
    let connected = match version {
        Some(version) if !version.has_initialize() => {
            config = config.with_protocol_version(version.clone());
            let lifecycle = ClientLifecycleMode::Discover {
                preferred_versions: vec![version],
            };
            config.serve_with_lifecycle(transport, lifecycle).await
        }
        Some(version) => config.with_protocol_version(version).serve(transport).await,
        None => config.serve(transport).await,
    };
    connected.map_err(|err| Failure::Server(format!("cannot connect to {target}: {err}")))
}

/// Every page of `tools/list`, in order, up to `max` tools (and whether there were more);
/// nothing else is asked.
pub(crate) async fn tools(
    client: &RunningService<RoleClient, ClientConfig>,
    target: &str,
    max: usize,
) -> Result<(Server, Vec<Value>, bool), Failure> {
    let info = client.peer_info();
    let server = Server {
        name: info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map_or_else(|| target.to_owned(), |s| s.name.clone()),
        version: info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(|s| s.version.clone()),
        protocol_version: info.as_ref().map(|i| i.protocol_version.to_string()),
    };
    let mut tools = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let page = client
            .list_tools(Some(params))
            .await
            .map_err(|err| Failure::Server(format!("tools/list failed on {target}: {err}")))?;
        pages += 1;
        let more = page.tools.len() > max - tools.len();
        for tool in page.tools.into_iter().take(max - tools.len()) {
            tools.push(serde_json::to_value(tool).unwrap_or(Value::Null));
        }
        cursor = page.next_cursor;
        if more || (tools.len() == max && cursor.is_some()) {
            tracing::debug!(max, "the listing was cut");
            return Ok((server, tools, true));
        }
        if cursor.is_none() {
            break;
        }
        if pages >= 1000 {
            return Err(Failure::Server(format!(
                "{target} sent 1000 pages of tools and still a next cursor; stopping"
            )));
        }
    }
    tracing::debug!(pages, tools = tools.len(), "listed");
    Ok((server, tools, false))
}
