//! [`Linked`]: a structured result (with its output schema) that also links to resources.

use super::{Content, ResourceLink};

/// A structured value and links to resources the client can read: the value is the
/// result's structured content (its type gives the tool its `outputSchema`, as for any
/// `Serialize + JsonSchema` return), and each link follows its JSON text as a
/// `resource_link` block.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Serialize;
/// use toolsmith::{tool::Linked, tool::ResourceLink, tool};
///
/// #[derive(Serialize, JsonSchema)]
/// struct Report { id: u64 }
///
/// /// Make a report.
/// #[tool(destructive = false, closed_world)]
/// fn make_report() -> Linked<Report> {
///     Linked::new(Report { id: 7 }).link(ResourceLink::new("reports://7", "report 7"))
/// }
/// assert_eq!(make_report().links().len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linked<T> {
    value: T,
    links: Vec<ResourceLink>,
}

impl<T> Linked<T> {
    /// `value`, with no link yet.
    ///
    /// ```
    /// let linked = toolsmith::tool::Linked::new(3);
    /// assert_eq!(*linked.value(), 3);
    /// ```
    pub fn new(value: T) -> Self {
        Linked {
            value,
            links: Vec::new(),
        }
    }

    /// With one more link.
    ///
    /// ```
    /// let linked = toolsmith::tool::Linked::new(()).link(toolsmith::tool::ResourceLink::new("notes://1", "note 1"));
    /// assert_eq!(linked.links()[0].uri(), "notes://1");
    /// ```
    pub fn link(mut self, link: ResourceLink) -> Self {
        self.links.push(link);
        self
    }

    /// The value.
    ///
    /// ```
    /// assert_eq!(*toolsmith::tool::Linked::new("v").value(), "v");
    /// ```
    pub fn value(&self) -> &T {
        &self.value
    }

    /// The links, in order.
    ///
    /// ```
    /// assert!(toolsmith::tool::Linked::new(1).links().is_empty());
    /// ```
    pub fn links(&self) -> &[ResourceLink] {
        &self.links
    }

    pub(crate) fn into_parts(self) -> (T, Vec<rmcp::model::ContentBlock>) {
        let blocks = self
            .links
            .into_iter()
            .map(|link| Content::ResourceLink(link).into_block())
            .collect();
        (self.value, blocks)
    }
}
