//! The OAuth scopes a tool needs: by default the one its hints imply (read-only, write,
//! destructive, in that order of power), or the ones it names with `#[tool(scopes = [...])]`.

use std::fmt;

use crate::Hints;
use crate::tool::ToolInfo;

/// The names of the three scopes the hints imply, ordered: a token with the write scope may
/// also call read-only tools, one with the destructive scope may call every tool whose hints
/// decide.
///
/// | tool | scope needed (default name) |
/// | --- | --- |
/// | read-only | `tools:read` |
/// | not read-only, not destructive | `tools:write` |
/// | destructive | `tools:destructive` |
///
/// ```
/// use toolsmith::{Hints, tool::ScopeNames};
///
/// let names = ScopeNames::default();
/// assert_eq!(names.for_hints(Hints::READ_ONLY), "tools:read");
/// assert_eq!(names.for_hints(Hints::DEFAULT), "tools:destructive");
/// let custom = ScopeNames::new("notes.read", "notes.write", "notes.admin");
/// assert_eq!(custom.for_hints(Hints::READ_ONLY), "notes.read");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeNames {
    levels: [String; 3],
}

impl Default for ScopeNames {
    fn default() -> Self {
        ScopeNames::new("tools:read", "tools:write", "tools:destructive")
    }
}

impl ScopeNames {
    /// The names of the read, write and destructive scopes.
    ///
    /// ```
    /// let names = toolsmith::tool::ScopeNames::new("read", "write", "admin");
    /// assert_eq!(names.destructive(), "admin");
    /// ```
    pub fn new(
        read: impl Into<String>,
        write: impl Into<String>,
        destructive: impl Into<String>,
    ) -> Self {
        ScopeNames {
            levels: [read.into(), write.into(), destructive.into()],
        }
    }

    /// The scope of read-only tools.
    ///
    /// ```
    /// assert_eq!(toolsmith::tool::ScopeNames::default().read(), "tools:read");
    /// ```
    pub fn read(&self) -> &str {
        &self.levels[0]
    }

    /// The scope of tools that write but do not destroy.
    ///
    /// ```
    /// assert_eq!(toolsmith::tool::ScopeNames::default().write(), "tools:write");
    /// ```
    pub fn write(&self) -> &str {
        &self.levels[1]
    }

    /// The scope of destructive tools.
    ///
    /// ```
    /// assert_eq!(toolsmith::tool::ScopeNames::default().destructive(), "tools:destructive");
    /// ```
    pub fn destructive(&self) -> &str {
        &self.levels[2]
    }

    /// The scope that tools with these hints need.
    ///
    /// ```
    /// let names = toolsmith::tool::ScopeNames::default();
    /// let additive = toolsmith::Hints { destructive: false, ..toolsmith::Hints::DEFAULT };
    /// assert_eq!(names.for_hints(additive), "tools:write");
    /// ```
    pub fn for_hints(&self, hints: Hints) -> &str {
        &self.levels[level(hints)]
    }

    /// What `tool` needs: the scopes it names, else its hints' scope.
    ///
    /// ```
    /// use toolsmith::{Registry, tool::ScopeNames};
    ///
    /// /// Log an expense.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn log_expense(cents: u64) -> String {
    ///     format!("logged {cents}")
    /// }
    ///
    /// /// Audit the ledger.
    /// #[toolsmith::tool(read_only, closed_world, scopes = ["ledger:audit"])]
    /// fn audit_ledger() -> String {
    ///     "balanced".into()
    /// }
    ///
    /// let names = ScopeNames::default();
    /// let global = Registry::global();
    /// assert_eq!(names.required(global.get("log_expense").unwrap()).to_string(), "tools:write");
    /// assert_eq!(names.required(global.get("audit_ledger").unwrap()).to_string(), "ledger:audit");
    /// ```
    pub fn required<'a>(&'a self, tool: &ToolInfo) -> RequiredScopes<'a> {
        match tool.header().scopes() {
            [] => RequiredScopes::level(self, level(tool.hints())),
            named => RequiredScopes::named(named),
        }
    }

    /// The scopes reading a resource or getting a prompt needs: every one of `scopes`, or,
    /// when it names none, the read scope (or a more powerful one).
    ///
    /// ```
    /// let names = toolsmith::tool::ScopeNames::default();
    /// assert!(names.required_for(&[]).granted_by(&["tools:read"]));
    /// assert!(!names.required_for(&["notes:private"]).granted_by(&["tools:destructive"]));
    /// ```
    pub fn required_for(&self, scopes: &'static [&'static str]) -> RequiredScopes<'_> {
        match scopes {
            [] => RequiredScopes::level(self, 0),
            named => RequiredScopes::named(named),
        }
    }

    /// Whether a token granting `granted` may call `tool`: it holds every scope the tool
    /// names, or its hints' scope or a more powerful one.
    ///
    /// ```
    /// use toolsmith::{Registry, tool::ScopeNames};
    ///
    /// /// Erase the ledger's drafts.
    /// #[toolsmith::tool(destructive, idempotent, closed_world)]
    /// fn erase_drafts() -> String {
    ///     "erased".into()
    /// }
    ///
    /// let names = ScopeNames::default();
    /// let tool = Registry::global().get("erase_drafts").unwrap();
    /// assert!(names.permits(tool, &["tools:destructive"]));
    /// assert!(!names.permits(tool, &["tools:read", "tools:write"]));
    /// ```
    pub fn permits<S: AsRef<str>>(&self, tool: &ToolInfo, granted: &[S]) -> bool {
        self.required(tool).granted_by(granted)
    }

    /// Every scope a server with `tools` may ask for: the three levels, then the scopes the
    /// tools name, each once.
    #[cfg(feature = "auth")]
    pub(crate) fn supported<'t>(
        &self,
        tools: impl IntoIterator<Item = &'t ToolInfo>,
    ) -> Vec<String> {
        let mut all: Vec<String> = self.levels.to_vec();
        for tool in tools {
            for scope in tool.header().scopes() {
                if !all.iter().any(|s| s == scope) {
                    all.push((*scope).to_owned());
                }
            }
        }
        all
    }
}

/// The index of the level tools with `hints` need: 0 read, 1 write, 2 destructive.
fn level(hints: Hints) -> usize {
    if hints.read_only {
        0
    } else if hints.destructive {
        2
    } else {
        1
    }
}

/// The scopes a tool needs (see [`ScopeNames::required`]); displayed space-separated, as in
/// an OAuth `scope` parameter.
///
/// ```
/// use toolsmith::{Registry, tool::ScopeNames};
///
/// /// Export the ledger as CSV.
/// #[toolsmith::tool(read_only, closed_world, scopes = ["ledger:read", "ledger:export"])]
/// fn export_ledger() -> String {
///     "date,amount".into()
/// }
///
/// let names = ScopeNames::default();
/// let needed = names.required(Registry::global().get("export_ledger").unwrap());
/// assert_eq!(needed.to_string(), "ledger:read ledger:export");
/// assert!(!needed.granted_by(&["ledger:read"]));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct RequiredScopes<'a>(Needed<'a>);

/// What a [`RequiredScopes`] holds.
#[derive(Debug, Clone, Copy)]
enum Needed<'a> {
    /// One of the hint levels (an index into the names' levels): this one or a more
    /// powerful one.
    Level(&'a ScopeNames, usize),
    /// Every one of these.
    Named(&'static [&'static str]),
}

impl<'a> RequiredScopes<'a> {
    /// The scope of hint level `level` (0 read, 1 write, 2 destructive) or a more powerful one.
    pub(crate) fn level(names: &'a ScopeNames, level: usize) -> Self {
        RequiredScopes(Needed::Level(names, level))
    }

    /// Every one of `scopes`.
    pub(crate) fn named(scopes: &'static [&'static str]) -> Self {
        RequiredScopes(Needed::Named(scopes))
    }

    /// Whether `granted` satisfies it.
    ///
    /// ```
    /// use toolsmith::{Registry, tool::ScopeNames};
    ///
    /// /// Show the balance.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn show_balance() -> String {
    ///     "100.00".into()
    /// }
    ///
    /// let names = ScopeNames::default();
    /// let needed = names.required(Registry::global().get("show_balance").unwrap());
    /// assert!(needed.granted_by(&["tools:read"]));
    /// assert!(needed.granted_by(&["openid", "tools:write"]));
    /// assert!(!needed.granted_by::<&str>(&[]));
    /// ```
    pub fn granted_by<S: AsRef<str>>(&self, granted: &[S]) -> bool {
        let has = |scope: &str| granted.iter().any(|g| g.as_ref() == scope);
        match self.0 {
            Needed::Level(names, level) => names.levels[level..].iter().any(|s| has(s)),
            Needed::Named(scopes) => scopes.iter().all(|s| has(s)),
        }
    }

    /// The scopes, in order (for a level, the one it names).
    ///
    /// ```
    /// use toolsmith::{Registry, tool::ScopeNames};
    ///
    /// /// Transfer money between two accounts.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn transfer_funds(from: String, to: String, cents: u64) -> String {
    ///     format!("{cents} from {from} to {to}")
    /// }
    ///
    /// let names = ScopeNames::new("bank.read", "bank.write", "bank.admin");
    /// let tool = Registry::global().get("transfer_funds").unwrap();
    /// assert_eq!(names.required(tool).scopes(), ["bank.write"]);
    /// ```
    pub fn scopes(&self) -> Vec<&str> {
        match self.0 {
            Needed::Level(names, level) => vec![names.levels[level].as_str()],
            Needed::Named(scopes) => scopes.to_vec(),
        }
    }
}

impl fmt::Display for RequiredScopes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.scopes().join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::{RequiredScopes, ScopeNames};

    #[test]
    fn levels_are_ordered_and_named_scopes_are_all_needed() {
        let names = ScopeNames::default();
        let read = RequiredScopes::level(&names, 0);
        let write = RequiredScopes::level(&names, 1);
        let destroy = RequiredScopes::level(&names, 2);
        assert!(read.granted_by(&["tools:read"]));
        assert!(read.granted_by(&["tools:destructive"]));
        assert!(write.granted_by(&["openid", "tools:write"]));
        assert!(!write.granted_by(&["tools:read"]));
        assert!(!destroy.granted_by(&["tools:read", "tools:write"]));
        assert!(destroy.granted_by(&["tools:destructive"]));
        let named = RequiredScopes::named(&["billing:admin", "billing:read"]);
        assert!(!named.granted_by(&["billing:admin"]));
        assert!(!named.granted_by(&["tools:destructive"]));
        assert!(named.granted_by(&["billing:read", "billing:admin"]));
        assert_eq!(named.to_string(), "billing:admin billing:read");
        assert_eq!(write.to_string(), "tools:write");
    }
}
