//! An upstream MCP server as configured: how it is reached (a command started with only the
//! environment given, or a Streamable HTTP endpoint with only the headers given), its name
//! and prefix, and what governs its tools (see `session.rs` for how it is started).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::identity::ActsAs;
use crate::{OpenApi, Overrides, PerCaller, Pin};

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
    pub(crate) name: String,
    pub(crate) way: Way,
    prefix: Option<String>,
    pub(crate) strict_hints: bool,
    pub(crate) overrides: Overrides,
    pub(crate) pin: Option<Pin>,
    pub(crate) connect_timeout: Duration,
    /// How long it may take to list its tools, and each of its other lists.
    pub(crate) list_timeout: Duration,
    /// Whether its session starts with 2026-07-28's `server/discover`.
    pub(crate) discover: bool,
    pub(crate) call_timeout: Option<Duration>,
    /// How long an answer of a read-only idempotent tool is kept (`None`: none is).
    pub(crate) cache_ttl: Option<Duration>,
    /// Certificate authorities (a PEM file) trusted for its HTTPS beside the system's.
    pub(crate) ca_file: Option<PathBuf>,
    /// One session per caller, within these bounds (`None`: one shared session, unless it
    /// acts as each user).
    pub(crate) per_caller: Option<PerCaller>,
    /// How it acts as each user: the token it gets for them (`None`: as the gateway).
    pub(crate) acts_as: Option<Arc<dyn ActsAs>>,
    /// Its sign-in client, when it signs its users in at its own authorization server.
    #[cfg(feature = "upstream-signin")]
    pub(crate) sign_in: Option<Arc<crate::identity::signin::SignInClient>>,
    /// Which of its tools are served (`Upstream::include`, `Upstream::exclude`).
    pub(crate) chosen: crate::choice::Chosen,
    /// Where its sessions per caller are counted (`Upstream::metrics`).
    #[cfg(feature = "metrics")]
    pub(crate) series: Option<toolsmith::metrics::Series>,
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

    /// The HTTP API `api` describes (an OpenAPI document), called `name`: each operation a
    /// tool under the prefix, its hints from its HTTP method (see [`OpenApi`]), governed as
    /// any upstream's (overrides, `strict_hints`, the pin, the cache, the call timeout).
    ///
    /// ```
    /// use toolsmith_gateway::{OpenApi, Upstream};
    ///
    /// let petstore = Upstream::openapi("pets", OpenApi::new("petstore.yaml"));
    /// assert_eq!(petstore.tool_prefix(), "pets_");
    /// ```
    pub fn openapi(name: impl Into<String>, api: OpenApi) -> Self {
        Upstream::of(name.into(), Way::OpenApi(Box::new(api)))
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
            list_timeout: crate::listing::DEFAULT_LIST_TIMEOUT,
            discover: false,
            cache_ttl: None,
            call_timeout: None,
            ca_file: None,
            per_caller: None,
            acts_as: None,
            #[cfg(feature = "upstream-signin")]
            sign_in: None,
            chosen: Default::default(),
            #[cfg(feature = "metrics")]
            series: None,
        }
    }

    /// One session of it per caller (see [`PerCaller`]): for a started server, a child of
    /// each caller's own, whose [`env`](Upstream::env) may name the caller as
    /// `${caller.id}` (a digest of who the caller is: safe in a path), `${caller.subject}`,
    /// `${caller.email}` or (acting as each user) `${caller.token}`.
    /// An upstream that acts as each user ([`exchange`](Upstream::exchange),
    /// [`sign_in`](Upstream::sign_in)) has one per caller anyway; this sets its bounds.
    ///
    /// ```
    /// use toolsmith_gateway::{PerCaller, Upstream};
    ///
    /// let shell = Upstream::stdio("shell", "shell-mcp")
    ///     .env("HOME", "/home/${caller.id}")
    ///     .per_caller(PerCaller::new().max(4));
    /// assert_eq!(shell.per_caller_limits(), Some(&PerCaller::new().max(4)));
    /// ```
    pub fn per_caller(mut self, limits: PerCaller) -> Self {
        self.per_caller = Some(limits);
        self
    }

    /// The bounds of its sessions, when it has one per caller.
    ///
    /// ```
    /// let shared = toolsmith_gateway::Upstream::stdio("notes", "notes-mcp");
    /// assert_eq!(shared.per_caller_limits(), None);
    /// ```
    pub fn per_caller_limits(&self) -> Option<&PerCaller> {
        self.per_caller.as_ref()
    }

    /// Whether it has a session per caller: asked for, or acting as each user.
    pub(crate) fn is_per_caller(&self) -> bool {
        self.per_caller.is_some() || self.acts_as.is_some()
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
    /// never the gateway's own credentials or tokens. In `value`, `${NAME}` is the gateway's
    /// environment variable `NAME` and `${file:PATH}` a file's content, read at start (an
    /// error names one that is missing).
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
    /// these only: never a token a client sent the gateway. In `value`, `${NAME}` is the
    /// gateway's environment variable `NAME` and `${file:PATH}` a file's content
    /// (`Bearer ${GITHUB_TOKEN}`), read at connect.
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

    /// Trusts the certificate authorities in `path` (PEM) for its HTTPS, beside the system's
    /// (an HTTP upstream's or an API's: its URL, its document's URL, its calls): a private
    /// CA's upstream is reached without trusting that CA for every other. The file is read
    /// at connect; one that is missing or holds no certificate fails the connect, naming it.
    /// (The system's own list is read through rustls-platform-verifier: on Linux,
    /// `SSL_CERT_FILE` and `SSL_CERT_DIR` replace it.)
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::http("intranet", "https://mcp.corp.internal/mcp")
    ///     .ca_file("/etc/corp/ca.pem");
    /// assert_eq!(up.name(), "intranet");
    /// ```
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.ca_file = Some(path.into());
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
    /// [`registry`](crate::Mounted::registry), and again to what it lists after a restart.
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

    /// How long it may take to list its tools, every page, at connect, at a restart and
    /// when it says they changed; and again each of its resources, resource templates and
    /// prompts (default 30 s). Past it, a connect or a restart fails naming the upstream, and
    /// a changed list is not read (the one served stays). However fast it answers, at most
    /// 1,000 pages and 10,000 entries of a list are read, and a cursor it names twice ends
    /// the list (the rest left out, with a warning).
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("gh", "github-mcp")
    ///     .list_timeout(std::time::Duration::from_secs(10));
    /// # let _ = up;
    /// ```
    pub fn list_timeout(mut self, limit: Duration) -> Self {
        self.list_timeout = limit;
        self
    }

    /// Keeps the answers of its read-only idempotent tools (by their hints, as corrected) for
    /// `ttl`, per caller, tool and arguments: the same call by the same caller within `ttl`
    /// is answered from the cache, without reaching the upstream. An error result is never
    /// kept; at most 1,024 answers are (the oldest go first). Off by default.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::stdio("docs", "docs-mcp")
    ///     .cache(std::time::Duration::from_secs(30));
    /// # let _ = up;
    /// ```
    pub fn cache(mut self, ttl: Duration) -> Self {
        self.cache_ttl = Some(ttl);
        self
    }

    /// Starts its session the 2026-07-28 way (`server/discover`, falling back to
    /// `initialize` when the upstream does not know it), instead of with `initialize` and the
    /// newest revision before it (the default: the one servers written with today's SDKs ask
    /// their questions on). On 2026-07-28 an upstream served statelessly over HTTP can ask its
    /// client (an `input_required` answer), and its list changes come on a listen stream.
    ///
    /// ```
    /// let up = toolsmith_gateway::Upstream::http("tools", "https://tools.example/mcp")
    ///     .discover(true);
    /// # let _ = up;
    /// ```
    pub fn discover(mut self, discover: bool) -> Self {
        self.discover = discover;
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

    /// Its command line, or its URL (without its user part or query: they may hold its
    /// credentials).
    pub(crate) fn shown(&self) -> String {
        match &self.way {
            Way::Stdio { program, args, .. } => std::iter::once(program.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Way::Http { url, .. } => crate::told::shown_url(url),
            Way::OpenApi(api) => api.document.clone(),
        }
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
pub(crate) enum Way {
    Stdio {
        program: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// An HTTP API, by its OpenAPI document.
    OpenApi(Box<OpenApi>),
}
