//! Serving policies: which tools a server offers, enforced server-side (a hidden tool cannot
//! be called by name either), and [`Refusal`], why a tool is not offered.

use crate::tool::ToolInfo;

/// Which tools a server offers. The default offers every tool; each builder method narrows
/// it.
///
/// ```
/// use toolsmith::{Registry, server::Policy};
///
/// /// List the invoices.
/// #[toolsmith::tool(read_only, closed_world)]
/// fn list_invoices() -> Vec<String> {
///     vec!["INV-1".into()]
/// }
///
/// /// Issue an invoice.
/// #[toolsmith::tool(destructive = false, closed_world)]
/// fn issue_invoice(amount: u64) -> String {
///     format!("INV-2: {amount}")
/// }
///
/// let policy = Policy::new().read_only(true);
/// assert!(policy.allows(Registry::global().get("list_invoices").unwrap()).is_ok());
/// assert!(policy.allows(Registry::global().get("issue_invoice").unwrap()).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Policy {
    pub(crate) read_only: bool,
    pub(crate) deny_destructive: bool,
    pub(crate) deny_open_world: bool,
    pub(crate) only_category: Option<String>,
    pub(crate) only_tag: Option<String>,
}

impl Policy {
    /// A policy that offers every tool.
    ///
    /// ```
    /// assert_eq!(toolsmith::server::Policy::new(), toolsmith::server::Policy::default());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Offer only read-only tools (`serve --read-only`).
    ///
    /// ```
    /// assert!(toolsmith::server::Policy::new().read_only(true).is_read_only());
    /// ```
    pub fn read_only(mut self, on: bool) -> Self {
        self.read_only = on;
        self
    }

    /// Offer no destructive tool (`serve --deny-destructive`); read-only tools are never
    /// destructive.
    ///
    /// ```
    /// assert!(toolsmith::server::Policy::new().deny_destructive(true).denies_destructive());
    /// ```
    pub fn deny_destructive(mut self, on: bool) -> Self {
        self.deny_destructive = on;
        self
    }

    /// Offer no open-world tool (`serve --deny-open-world`): for deployments that must not
    /// reach outside the server's own data (air-gapped, or bound by compliance).
    ///
    /// ```
    /// assert!(toolsmith::server::Policy::new().deny_open_world(true).denies_open_world());
    /// ```
    pub fn deny_open_world(mut self, on: bool) -> Self {
        self.deny_open_world = on;
        self
    }

    /// Offer only tools of `category` (`serve --only-category C`).
    ///
    /// ```
    /// let policy = toolsmith::server::Policy::new().only_category("notes");
    /// assert_eq!(policy.category(), Some("notes"));
    /// ```
    pub fn only_category(mut self, category: impl Into<String>) -> Self {
        self.only_category = Some(category.into());
        self
    }

    /// Offer only tools with `tag` (`serve --only-tag T`).
    ///
    /// ```
    /// let policy = toolsmith::server::Policy::new().only_tag("read");
    /// assert_eq!(policy.tag(), Some("read"));
    /// ```
    pub fn only_tag(mut self, tag: impl Into<String>) -> Self {
        self.only_tag = Some(tag.into());
        self
    }

    /// Whether only read-only tools are offered.
    ///
    /// ```
    /// assert!(!toolsmith::server::Policy::new().is_read_only());
    /// ```
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Whether destructive tools are withheld.
    ///
    /// ```
    /// assert!(!toolsmith::server::Policy::new().denies_destructive());
    /// ```
    pub fn denies_destructive(&self) -> bool {
        self.deny_destructive
    }

    /// Whether open-world tools are withheld.
    ///
    /// ```
    /// assert!(!toolsmith::server::Policy::new().denies_open_world());
    /// ```
    pub fn denies_open_world(&self) -> bool {
        self.deny_open_world
    }

    /// The only category offered, if one is set.
    ///
    /// ```
    /// assert_eq!(toolsmith::server::Policy::new().category(), None);
    /// ```
    pub fn category(&self) -> Option<&str> {
        self.only_category.as_deref()
    }

    /// The only tag offered, if one is set.
    ///
    /// ```
    /// assert_eq!(toolsmith::server::Policy::new().tag(), None);
    /// ```
    pub fn tag(&self) -> Option<&str> {
        self.only_tag.as_deref()
    }

    /// `Ok` when `tool` is offered, else why not; the [`Refusal`]'s text is what a refused
    /// call shows.
    ///
    /// ```
    /// use toolsmith::{Registry, server::Policy, server::Refusal};
    ///
    /// /// Void an invoice.
    /// #[toolsmith::tool(destructive, idempotent, closed_world, category = "billing")]
    /// fn void_invoice(id: u64) -> String {
    ///     format!("voided {id}")
    /// }
    ///
    /// let tool = Registry::global().get("void_invoice").unwrap();
    /// assert!(Policy::default().allows(tool).is_ok());
    /// assert!(Policy::new().only_category("billing").allows(tool).is_ok());
    /// let refusal = Policy::new().deny_destructive(true).allows(tool).unwrap_err();
    /// assert_eq!(refusal, Refusal::DenyDestructive { tool: "void_invoice".into() });
    /// assert!(refusal.to_string().contains("--deny-destructive"));
    /// ```
    pub fn allows(&self, tool: &ToolInfo) -> Result<(), Refusal> {
        let hints = tool.hints();
        let name = || tool.name().to_owned();
        if self.read_only && !hints.read_only {
            return Err(Refusal::ReadOnly { tool: name() });
        }
        if self.deny_destructive && !hints.read_only && hints.destructive {
            return Err(Refusal::DenyDestructive { tool: name() });
        }
        if self.deny_open_world && hints.open_world {
            return Err(Refusal::DenyOpenWorld { tool: name() });
        }
        if let Some(category) = &self.only_category
            && tool.category() != Some(category.as_str())
        {
            return Err(Refusal::OnlyCategory {
                tool: name(),
                category: category.clone(),
            });
        }
        if let Some(tag) = &self.only_tag
            && !tool.tags().contains(tag)
        {
            return Err(Refusal::OnlyTag {
                tool: name(),
                tag: tag.clone(),
            });
        }
        Ok(())
    }

    /// This policy narrowed by `other`: a flag set in either is set; `other`'s category and
    /// tag, when given, replace this one's.
    pub(crate) fn narrowed_by(self, other: Policy) -> Policy {
        Policy {
            read_only: self.read_only || other.read_only,
            deny_destructive: self.deny_destructive || other.deny_destructive,
            deny_open_world: self.deny_open_world || other.deny_open_world,
            only_category: other.only_category.or(self.only_category),
            only_tag: other.only_tag.or(self.only_tag),
        }
    }
}

/// Why a [`Policy`] does not offer a tool. Its text is what a refused call answers (an
/// error result of kind [`ErrorKind::Refused`](crate::error::ErrorKind::Refused)).
///
/// ```
/// let refusal = toolsmith::server::Refusal::OnlyTag { tool: "delete_note".into(), tag: "read".into() };
/// assert_eq!(refusal.tool(), "delete_note");
/// assert_eq!(
///     refusal.to_string(),
///     "tool 'delete_note' is not available: this server runs with --only-tag read, which \
///      offers only tools with that tag; ask the operator to change the policy if it is needed"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// The policy offers only read-only tools, and this one is not.
    #[error(
        "tool '{tool}' is not available: this server runs with --read-only, which offers only read-only tools; {ASK}"
    )]
    ReadOnly {
        /// The tool refused.
        tool: String,
    },
    /// The policy offers no destructive tool, and this one is.
    #[error(
        "tool '{tool}' is not available: this server runs with --deny-destructive, which offers no destructive tool; {ASK}"
    )]
    DenyDestructive {
        /// The tool refused.
        tool: String,
    },
    /// The policy offers no open-world tool, and this one reaches outside the server.
    #[error(
        "tool '{tool}' is not available: this server runs with --deny-open-world, which offers no tool that reaches outside the server; {ASK}"
    )]
    DenyOpenWorld {
        /// The tool refused.
        tool: String,
    },
    /// The policy offers only one category, and this tool is not in it.
    #[error(
        "tool '{tool}' is not available: this server runs with --only-category {category}, which offers only that category; {ASK}"
    )]
    OnlyCategory {
        /// The tool refused.
        tool: String,
        /// The only category offered.
        category: String,
    },
    /// The policy offers only tools with one tag, and this tool lacks it.
    #[error(
        "tool '{tool}' is not available: this server runs with --only-tag {tag}, which offers only tools with that tag; {ASK}"
    )]
    OnlyTag {
        /// The tool refused.
        tool: String,
        /// The tag required.
        tag: String,
    },
}

/// The end of every refusal's text.
const ASK: &str = "ask the operator to change the policy if it is needed";

impl Refusal {
    /// The name of the tool refused.
    ///
    /// ```
    /// let refusal = toolsmith::server::Refusal::ReadOnly { tool: "create_note".into() };
    /// assert_eq!(refusal.tool(), "create_note");
    /// ```
    pub fn tool(&self) -> &str {
        match self {
            Refusal::ReadOnly { tool }
            | Refusal::DenyDestructive { tool }
            | Refusal::DenyOpenWorld { tool }
            | Refusal::OnlyCategory { tool, .. }
            | Refusal::OnlyTag { tool, .. } => tool,
        }
    }
}
