//! What can go wrong mounting an upstream.

use std::fmt;

/// An upstream that could not be mounted.
///
/// ```
/// let err = toolsmith_gateway::Error::Start {
///     upstream: "notes".into(),
///     command: "no-such-program".into(),
///     why: "No such file or directory".into(),
/// };
/// assert!(err.to_string().contains("cannot start upstream 'notes'"));
/// ```
///
/// What an upstream said is escaped in its text (a terminal control as `\x1b`):
///
/// ```
/// let err = toolsmith_gateway::Error::List {
///     upstream: "evil".into(),
///     why: "it answered \x1b[2J\nhere".into(),
/// };
/// assert!(err.to_string().ends_with(r"it answered \x1b[2J\x0ahere"));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Its command could not be started.
    Start {
        upstream: String,
        command: String,
        why: String,
    },
    /// It started, but did not complete the MCP handshake (in time).
    Connect { upstream: String, why: String },
    /// It did not list its tools, resources or prompts (in time).
    List { upstream: String, why: String },
    /// Its tools cannot be served as they are (a name that is not a valid MCP tool name, two
    /// tools with one name once prefixed).
    Tools(toolsmith::Error),
    /// An override cannot apply to a tool it matches (a confirmation question naming an
    /// argument the tool does not take).
    Overrides { tool: String, why: String },
    /// A secret its configuration names (`${NAME}`, `${file:PATH}`) is not there.
    Secret { upstream: String, why: String },
    /// Its OpenAPI document could not be read or made into tools.
    Api { upstream: String, why: String },
    /// The token it accepts could not be had (the gateway's own, for listing its tools: a
    /// token endpoint that refused or did not answer, a client key that cannot sign).
    Identity { upstream: String, why: String },
    /// Its configuration cannot be used as it is (an `include` pattern that is not a glob).
    Config { upstream: String, why: String },
}

/// Its text with every terminal control escaped (`\x1b`): what an upstream said (a tool's
/// name, an error's message) cannot act on the terminal that shows it.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&toolsmith_audit::shown(&Unescaped(self).to_string()))
    }
}

/// An error's text as written, before it is escaped.
struct Unescaped<'a>(&'a Error);

impl fmt::Display for Unescaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Error::Start {
                upstream,
                command,
                why,
            } => write!(
                f,
                "cannot start upstream '{upstream}' (`{command}`): {why}; check the command and that it is installed"
            ),
            Error::Connect { upstream, why } => write!(
                f,
                "upstream '{upstream}' did not complete the MCP handshake: {why}; check that it is an MCP server"
            ),
            Error::Secret { upstream, why } => write!(
                f,
                "upstream '{upstream}': {why}; set it, or correct the configuration"
            ),
            Error::Api { upstream, why } => write!(f, "the HTTP API '{upstream}': {why}"),
            Error::Identity { upstream, why } | Error::Config { upstream, why } => {
                write!(f, "upstream '{upstream}': {why}")
            }
            Error::List { upstream, why } => {
                write!(f, "upstream '{upstream}' was not listed: {why}")
            }
            Error::Tools(err) => write!(f, "{err}"),
            Error::Overrides { tool, why } => {
                write!(f, "the overrides of tool '{tool}': {why}")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Tools(err) => Some(err),
            _ => None,
        }
    }
}

/// `err` and each of its causes not already in its text, joined by `: `: an HTTP client's
/// error says "error sending request", its causes what went wrong (a refused connection, an
/// untrusted certificate).
pub(crate) fn said(err: &dyn std::error::Error) -> String {
    let mut said = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !said.contains(&text) {
            said.push_str(": ");
            said.push_str(&text);
        }
        source = cause.source();
    }
    said
}
