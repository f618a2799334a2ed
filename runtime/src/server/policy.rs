//! Serving policies: which tools a server offers, enforced server-side (a hidden tool cannot
//! be called by name either).

use crate::ToolInfo;

/// Which tools a server offers. The default offers every tool.
///
/// ```
/// use toolsmith::Policy;
///
/// let policy = Policy { read_only: true, ..Policy::default() };
/// for tool in toolsmith::registry().tools() {
///     if policy.allows(tool).is_ok() {
///         assert!(tool.hints().read_only);
///     }
/// }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Policy {
    /// Offer only read-only tools (`serve --read-only`).
    pub read_only: bool,
    /// Offer no destructive tool (`serve --deny-destructive`); read-only tools are never
    /// destructive.
    pub deny_destructive: bool,
    /// Offer only tools of this category (`serve --only-category C`).
    pub only_category: Option<String>,
    /// Offer only tools with this tag (`serve --only-tag T`).
    pub only_tag: Option<String>,
}

impl Policy {
    /// `Ok` when `tool` is offered, else why not (the text a refused call shows).
    ///
    /// ```
    /// # for tool in toolsmith::registry().tools() {
    /// assert!(toolsmith::Policy::default().allows(tool).is_ok());
    /// # }
    /// ```
    pub fn allows(&self, tool: &ToolInfo) -> Result<(), String> {
        let hints = tool.hints();
        let refuse = |why: String| {
            Err(format!(
                "tool '{}' is not available: {why}; ask the operator to change the policy if it is needed",
                tool.name()
            ))
        };
        if self.read_only && !hints.read_only {
            return refuse(
                "this server runs with --read-only, which offers only read-only tools".into(),
            );
        }
        if self.deny_destructive && !hints.read_only && hints.destructive {
            return refuse(
                "this server runs with --deny-destructive, which offers no destructive tool".into(),
            );
        }
        if let Some(category) = &self.only_category
            && tool.category() != Some(category.as_str())
        {
            return refuse(format!(
                "this server runs with --only-category {category}, which offers only that category"
            ));
        }
        if let Some(tag) = &self.only_tag
            && !tool.tags().contains(&tag.as_str())
        {
            return refuse(format!(
                "this server runs with --only-tag {tag}, which offers only tools with that tag"
            ));
        }
        Ok(())
    }
}
