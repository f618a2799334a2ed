//! The errors of toolsmith: [`ToolError`], the one a tool returns on purpose, and [`Error`],
//! the one serving can fail with, with [`ErrorKind`], the kind of failure a client reads in
//! a result's [`META_ERROR`] `_meta` entry.

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
    refused: bool,
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
            refused: false,
        }
    }

    /// A refusal: the call did not do its work, on purpose (a policy of the tool's own, a
    /// tool held back for review). The client sees `message` as an error result of kind
    /// [`ErrorKind::Refused`], and metrics count the call `outcome="refused"`, as a call the
    /// server's policy or its user refused.
    ///
    /// ```
    /// let err = toolsmith::ToolError::refused("held back for review");
    /// assert!(err.is_refused());
    /// assert!(!toolsmith::ToolError::new("quota exceeded").is_refused());
    /// ```
    pub fn refused(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            refused: true,
        }
    }

    /// Whether it is a refusal ([`ToolError::refused`]).
    ///
    /// ```
    /// assert!(toolsmith::ToolError::refused("no").is_refused());
    /// ```
    pub fn is_refused(&self) -> bool {
        self.refused
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
/// Each kind has its own variant, and a variant that wraps another error keeps it as its
/// [`source`](std::error::Error::source), so a report can walk the whole chain.
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
/// use toolsmith::rmcp::service::ServerInitializeError;
///
/// let err = toolsmith::Error::Initialize(Box::new(ServerInitializeError::Cancelled));
/// assert_eq!(format!("{err:?}"), err.to_string());
/// ```
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two tools were registered under one name. Each definition is named by its Rust path
    /// and `file:line`.
    #[error(
        "two tools are named '{name}': {first} and {second}; rename one (with #[tool(name = \"...\")], or the name its `Tool` gives)"
    )]
    DuplicateTool {
        /// The tool name both definitions claim.
        name: String,
        /// The first definition, as `path at file:line`.
        first: String,
        /// The second definition, as `path at file:line`.
        second: String,
    },
    /// Two resources share a URI, two templates could match one URI, or two prompts share a
    /// name. Each definition is named by its Rust path and `file:line`.
    #[error("{what}: {first} and {second}; {fix}")]
    Conflict {
        /// What they share, e.g. `two resources have the URI 'notes://index'`.
        what: String,
        /// The first definition, as `path at file:line`.
        first: String,
        /// The second definition, as `path at file:line`.
        second: String,
        /// How to resolve it.
        fix: &'static str,
    },
    /// A tool asks for `State<T>` of a type no [`Server::state`](crate::Server::state) call
    /// registered.
    #[error(
        "tool {tool} needs `State<{type_name}>`, which was never registered: register a value with `.state(value)` on the `toolsmith::Server` that serves it (in a test, the server given to `Client::connect`)"
    )]
    MissingState {
        /// The tool, as `name` (`path at file:line`).
        tool: String,
        /// The state type it needs.
        type_name: &'static str,
    },
    /// A setting of the server (from the builder or the command line) cannot be used: a
    /// scope name that is not a scope token, an address that resolves to nothing, a JWKS
    /// file that cannot be read. Nothing was served.
    ///
    /// ```
    /// use std::error::Error as _;
    ///
    /// let err = toolsmith::Error::Config {
    ///     setting: "HTTP address",
    ///     message: "`nowhere` is not host:port".into(),
    ///     source: None,
    /// };
    /// assert_eq!(err.to_string(), "invalid HTTP address: `nowhere` is not host:port");
    /// assert!(err.source().is_none());
    /// ```
    #[error("invalid {setting}: {message}")]
    Config {
        /// The setting, as a person names it (`scope names`, `HTTP address`, `JWKS`).
        setting: &'static str,
        /// What is wrong with it, and what to do.
        message: String,
        /// The error behind it, when there is one (the resolver's, the file system's).
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
    },
    /// The MCP session could not start (for example the client sent something other than
    /// `initialize` first). rmcp's error is boxed (it is large); as the `source()` it is a
    /// `Box<ServerInitializeError>`, whose own `source()` continues rmcp's chain.
    ///
    /// ```
    /// use std::error::Error as _;
    /// use toolsmith::rmcp::service::ServerInitializeError;
    ///
    /// let err = toolsmith::Error::Initialize(Box::new(ServerInitializeError::ConnectionClosed("eof".into())));
    /// assert_eq!(err.to_string(), "MCP session did not start: connection closed: eof");
    /// let source = err.source().expect("rmcp's error is kept");
    /// assert!(source.downcast_ref::<Box<ServerInitializeError>>().is_some());
    /// if let toolsmith::Error::Initialize(rmcp) = &err {
    ///     assert!(matches!(**rmcp, ServerInitializeError::ConnectionClosed(_)));
    /// }
    /// ```
    #[error("MCP session did not start: {0}")]
    Initialize(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The task serving the session panicked or was cancelled; the runtime's error is the
    /// `source()`.
    #[error("the serving task failed: {0}")]
    Task(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
    /// The peer answered a request with something MCP does not allow there (the test
    /// client's `initialize` or `tools/list`, for example).
    ///
    /// ```
    /// let err = toolsmith::Error::Protocol { request: "tools/list", answer: "an empty result".into() };
    /// assert_eq!(err.to_string(), "unexpected answer to tools/list: an empty result");
    /// ```
    #[error("unexpected answer to {request}: {answer}")]
    Protocol {
        /// The request that was answered.
        request: &'static str,
        /// The answer, as text.
        answer: String,
    },
    /// A message could not be encoded as JSON (the encoder's error is the `source()`). An
    /// answer that fails to serialize is this error, never an empty body.
    ///
    /// ```
    /// use std::error::Error as _;
    ///
    /// let json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
    /// let err = toolsmith::Error::Encode(json.into());
    /// assert!(err.to_string().starts_with("could not encode a message as JSON: "));
    /// assert!(err.source().is_some());
    /// ```
    #[error("could not encode a message as JSON: {0}")]
    Encode(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
    /// Reading or writing the transport failed.
    ///
    /// ```
    /// use std::error::Error as _;
    ///
    /// let err = toolsmith::Error::from(std::io::Error::other("pipe closed"));
    /// assert_eq!(err.to_string(), "transport I/O failed: pipe closed");
    /// assert_eq!(err.source().unwrap().to_string(), "pipe closed");
    /// ```
    #[error("transport I/O failed: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// An [`Error::Config`] of `setting` with no error behind it.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn config(setting: &'static str, message: impl Into<String>) -> Error {
        Error::Config {
            setting,
            message: message.into(),
            source: None,
        }
    }

    /// An [`Error::Config`] of `setting` caused by `source`.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn config_from(
        setting: &'static str,
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error::Config {
            setting,
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The `_meta` key of an error result that says which kind of error it is (see
/// [`ErrorKind`]), so that a client can tell a refusal from a bug without reading the text.
///
/// ```
/// assert_eq!(toolsmith::error::META_ERROR, "dev.toolsmith/error");
/// ```
pub const META_ERROR: &str = "dev.toolsmith/error";

/// Why a call ended in an error result (`isError: true`); sent in the result's `_meta` under
/// [`META_ERROR`].
///
/// ```
/// use toolsmith::error::ErrorKind;
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
    /// assert_eq!(toolsmith::error::ErrorKind::Refused.as_str(), "refused");
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
    /// assert_eq!(toolsmith::error::ErrorKind::parse("no such kind"), None);
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

/// An error result saying `message`, its kind in `_meta`.
pub(crate) fn error_result(kind: ErrorKind, message: String) -> rmcp::model::CallToolResult {
    error_blocks(kind, vec![rmcp::model::ContentBlock::text(message)])
}

/// An error result of `content`, its kind in `_meta`.
pub(crate) fn error_blocks(
    kind: ErrorKind,
    content: Vec<rmcp::model::ContentBlock>,
) -> rmcp::model::CallToolResult {
    let mut result = rmcp::model::CallToolResult::error(content);
    let mut meta = rmcp::model::MetaObject::new();
    meta.insert(META_ERROR.into(), kind.as_str().into());
    result.meta = Some(meta);
    result
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::Error;

    #[test]
    fn config_keeps_its_source_and_never_says_io() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let err = Error::config_from("JWKS", "the JWKS file keys.json cannot be used", io);
        assert_eq!(
            err.to_string(),
            "invalid JWKS: the JWKS file keys.json cannot be used"
        );
        assert!(!format!("{err:?}").contains("transport I/O"));
        let source = err.source().expect("the I/O error is kept");
        let io = source.downcast_ref::<std::io::Error>().unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }

    #[tokio::test]
    async fn a_task_error_keeps_the_join_error() {
        let join = tokio::spawn(async { panic!("boom") }).await.unwrap_err();
        let err = Error::Task(Box::new(join));
        assert!(
            err.to_string().starts_with("the serving task failed: "),
            "{err}"
        );
        let source = err.source().expect("the join error is kept");
        assert!(
            source
                .downcast_ref::<tokio::task::JoinError>()
                .is_some_and(|join| join.is_panic())
        );
    }

    #[test]
    fn an_initialize_error_keeps_rmcps_error() {
        use rmcp::service::ServerInitializeError;
        let err = Error::Initialize(Box::new(ServerInitializeError::TransportError {
            error: rmcp::transport::DynamicTransportError::from_parts(
                "stdio",
                std::any::TypeId::of::<()>(),
                Box::new(std::io::Error::other("broken pipe")),
            ),
            context: "reading initialize".into(),
        }));
        assert!(
            err.to_string().starts_with("MCP session did not start: "),
            "{err}"
        );
        assert!(err.to_string().contains("broken pipe"), "{err}");
        let source = err.source().expect("rmcp's error is kept");
        let rmcp = source
            .downcast_ref::<Box<ServerInitializeError>>()
            .expect("rmcp's error, boxed");
        assert!(matches!(
            &**rmcp,
            ServerInitializeError::TransportError { context, .. } if context == "reading initialize"
        ));
    }

    #[test]
    fn encoding_errors_are_typed() {
        struct Unencodable;
        impl serde::Serialize for Unencodable {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("not representable"))
            }
        }
        let err = serde_json::to_vec(&Unencodable)
            .map_err(|err| Error::Encode(err.into()))
            .unwrap_err();
        assert!(err.to_string().ends_with("not representable"), "{err}");
        let source = err.source().expect("serde_json's error is kept");
        assert!(source.downcast_ref::<serde_json::Error>().is_some());
    }
}
