//! The errors of toolsmith: [`ToolError`], the one a tool returns on purpose, and [`Error`], the
//! one serving can fail with.

use std::fmt;

/// The error a tool returns on purpose: its message reaches the client unchanged, as an
/// `isError` tool result that the model can read and act on.
///
/// Any other error type a tool returns is masked: the client sees only
/// `Error calling tool '<name>'` and the real error goes to stderr through `tracing`, so
/// that internal details (paths, credentials, stack traces) never leak to a model.
///
/// ```
/// use toolsmith::ToolError;
///
/// fn find(id: u64) -> Result<String, ToolError> {
///     Err(ToolError::new(format!("No note with id {id}.")))
/// }
///
/// assert_eq!(find(99).unwrap_err().to_string(), "No note with id 99.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An error whose `message` is shown to the client as it is.
    ///
    /// ```
    /// let err = toolsmith::ToolError::new("quota exceeded");
    /// assert_eq!(err.message(), "quota exceeded");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }

    /// The message the client will see.
    ///
    /// ```
    /// assert_eq!(toolsmith::ToolError::new("no").message(), "no");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

/// Why serving or building the tool registry failed.
///
/// ```
/// fn takes_any_error(_: Box<dyn std::error::Error + Send + Sync + 'static>) {}
/// let err = toolsmith::Error::from(std::io::Error::other("pipe closed"));
/// assert!(err.to_string().contains("pipe closed"));
/// takes_any_error(Box::new(err));
/// ```
///
/// Its `Debug` form is the same sentence, so that `main` returning it through `?` prints
/// something a person can read (as `anyhow` does):
///
/// ```
/// let err = toolsmith::Error::Initialize("the client sent garbage".into());
/// assert_eq!(format!("{err:?}"), err.to_string());
/// ```
#[non_exhaustive]
pub enum Error {
    /// Two tools were registered under one name. Each definition is named by its Rust path
    /// and `file:line`.
    DuplicateTool {
        /// The tool name both definitions claim.
        name: String,
        /// The first definition, as `path at file:line`.
        first: String,
        /// The second definition, as `path at file:line`.
        second: String,
    },
    /// A tool asks for `State<T>` of a type no [`Server::state`](crate::Server::state) call
    /// registered.
    MissingState {
        /// The tool, as `name` (`path at file:line`).
        tool: String,
        /// The state type it needs.
        type_name: &'static str,
    },
    /// The MCP session could not start (for example the client never sent `initialize`).
    Initialize(String),
    /// Reading or writing the transport failed.
    Io(std::io::Error),
    /// The serving task stopped abnormally.
    Task(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DuplicateTool {
                name,
                first,
                second,
            } => write!(
                f,
                "two tools are named '{name}': {first} and {second}; rename one with #[tool(name = \"...\")]"
            ),
            Error::MissingState { tool, type_name } => write!(
                f,
                "tool {tool} needs `State<{type_name}>`, which was never registered: register a value with `.state(value)` on the `toolsmith::Server` that serves it (in a test, the server given to `Client::connect`)"
            ),
            Error::Initialize(msg) => write!(f, "MCP session did not start: {msg}"),
            Error::Io(err) => write!(f, "transport I/O failed: {err}"),
            Error::Task(msg) => write!(f, "serving task failed: {msg}"),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(err) => Some(err),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Error::Io(err)
    }
}

/// The `_meta` key of an error result that says which kind of error it is (see
/// [`ErrorKind`]), so that a client can tell a refusal from a bug without reading the text.
///
/// ```
/// assert_eq!(toolsmith::META_ERROR, "dev.toolsmith/error");
/// ```
pub const META_ERROR: &str = "dev.toolsmith/error";

/// Why a call ended in an error result (`isError: true`); sent in the result's `_meta` under
/// [`META_ERROR`].
///
/// ```
/// use toolsmith::ErrorKind;
/// assert_eq!(ErrorKind::InvalidArguments.as_str(), "invalid_arguments");
/// assert_eq!(ErrorKind::parse("timed_out"), Some(ErrorKind::TimedOut));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The tool returned a [`ToolError`]: its message, unchanged.
    Tool,
    /// The arguments were rejected before the tool ran.
    InvalidArguments,
    /// The tool failed otherwise, or panicked: the message is masked.
    Failed,
    /// The serving policy refused the call.
    Refused,
    /// The call ran past its timeout.
    TimedOut,
}

impl ErrorKind {
    const ALL: [ErrorKind; 5] = [
        ErrorKind::Tool,
        ErrorKind::InvalidArguments,
        ErrorKind::Failed,
        ErrorKind::Refused,
        ErrorKind::TimedOut,
    ];

    /// The name sent in `_meta`.
    ///
    /// ```
    /// assert_eq!(toolsmith::ErrorKind::Refused.as_str(), "refused");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Tool => "tool",
            ErrorKind::InvalidArguments => "invalid_arguments",
            ErrorKind::Failed => "failed",
            ErrorKind::Refused => "refused",
            ErrorKind::TimedOut => "timed_out",
        }
    }

    /// The kind named `name`.
    ///
    /// ```
    /// assert_eq!(toolsmith::ErrorKind::parse("no such kind"), None);
    /// ```
    pub fn parse(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
