//! [`Confirm`]: which tools ask the user before they run, decided by their hints, on top of
//! the tools that declare `#[tool(confirm)]` themselves.

use std::fmt;
use std::str::FromStr;

use crate::tool::{META_CONFIRMS, ToolInfo};

/// Which tools ask the user before every call (`Server::confirm`, `serve --confirm`,
/// `TOOLSMITH_CONFIRM`). A tool that declares `#[tool(confirm)]` always asks; this adds the
/// tools whose hints say they change something. The default, [`Confirm::None`], adds none.
///
/// ```
/// use toolsmith::{server::Confirm, Hints};
///
/// let additive = Hints { destructive: false, ..Hints::DEFAULT };
/// assert!(Confirm::Destructive.covers(Hints::DEFAULT));
/// assert!(!Confirm::Destructive.covers(additive));
/// assert!(Confirm::Write.covers(additive));
/// assert!(!Confirm::Write.covers(Hints::READ_ONLY));
/// assert_eq!("destructive".parse::<Confirm>(), Ok(Confirm::Destructive));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Confirm {
    /// Only the tools that declare `confirm` ask (`none`).
    #[default]
    None,
    /// Every destructive tool asks too (`destructive`).
    Destructive,
    /// Every tool that is not read-only asks too (`write`).
    Write,
}

impl Confirm {
    /// Whether a tool with `hints` asks under this policy (besides those declaring
    /// `confirm`).
    ///
    /// ```
    /// assert!(!toolsmith::server::Confirm::None.covers(toolsmith::Hints::DEFAULT));
    /// ```
    pub fn covers(self, hints: crate::Hints) -> bool {
        match self {
            Confirm::None => false,
            Confirm::Destructive => !hints.read_only && hints.destructive,
            Confirm::Write => !hints.read_only,
        }
    }

    /// Whether `tool` asks the user before every call under this policy: it declares
    /// `confirm`, or its hints are covered and the server its calls are sent on to does not
    /// ask itself ([`ToolInfo::upstream_confirms`]: one question per call, not two).
    ///
    /// ```
    /// use toolsmith::{Registry, server::Confirm};
    ///
    /// /// Reveal the API key.
    /// #[toolsmith::tool(read_only, closed_world, confirm)]
    /// fn reveal_api_key() -> String {
    ///     "sk-123".into()
    /// }
    ///
    /// /// Append a line to the log.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn append_log_line(line: String) -> String {
    ///     line
    /// }
    ///
    /// let reveal = Registry::global().get("reveal_api_key").unwrap();
    /// let append = Registry::global().get("append_log_line").unwrap();
    /// assert!(Confirm::None.asks(reveal));
    /// assert!(!Confirm::Destructive.asks(append));
    /// assert!(Confirm::Write.asks(append));
    /// ```
    pub fn asks(self, tool: &ToolInfo) -> bool {
        tool.declares_confirm() || (!tool.upstream_confirms() && self.covers(tool.hints()))
    }

    /// `tool` as `tools/list` sends it under this policy: with `_meta` [`META_CONFIRMS`]
    /// when the user is asked before every call (under this policy, or by the server its
    /// calls are sent on to), so that a gateway in front of this server does not ask a second
    /// time.
    pub(crate) fn listed(self, tool: &ToolInfo) -> rmcp::model::Tool {
        let mut listed = tool.mcp_tool().clone();
        if self.asks(tool) || tool.upstream_confirms() {
            listed
                .meta
                .get_or_insert_with(Default::default)
                .insert(META_CONFIRMS.into(), true.into());
        }
        listed
    }

    /// The policy's name on the command line: `none`, `destructive` or `write`.
    ///
    /// ```
    /// assert_eq!(toolsmith::server::Confirm::Write.as_str(), "write");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Confirm::None => "none",
            Confirm::Destructive => "destructive",
            Confirm::Write => "write",
        }
    }
}

impl fmt::Display for Confirm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A confirmation policy name that is none of `none`, `destructive`, `write`.
///
/// ```
/// let err = "all".parse::<toolsmith::server::Confirm>().unwrap_err();
/// assert!(err.to_string().contains("destructive"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownConfirm(String);

impl fmt::Display for UnknownConfirm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown confirmation policy {:?}: use none, destructive or write",
            self.0
        )
    }
}

impl std::error::Error for UnknownConfirm {}

impl FromStr for Confirm {
    type Err = UnknownConfirm;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(Confirm::None),
            "destructive" => Ok(Confirm::Destructive),
            "write" => Ok(Confirm::Write),
            _ => Err(UnknownConfirm(s.to_owned())),
        }
    }
}
