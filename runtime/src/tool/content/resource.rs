//! Resources in a result: a link the client can fetch, or the resource itself, embedded.

/// A link to a resource the client can fetch: its URI and name, with an optional MIME type
/// and description. Sent as an MCP `resource_link` block.
///
/// ```
/// let link = toolsmith::tool::ResourceLink::new("file:///tmp/report.csv", "report.csv")
///     .mime_type("text/csv")
///     .description("The full report");
/// assert_eq!(link.uri(), "file:///tmp/report.csv");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceLink {
    pub(super) uri: String,
    pub(super) name: String,
    pub(super) mime_type: Option<String>,
    pub(super) description: Option<String>,
}

impl ResourceLink {
    /// A link to `uri`, called `name`.
    ///
    /// ```
    /// let link = toolsmith::tool::ResourceLink::new("https://example.com/a.pdf", "a.pdf");
    /// assert_eq!(link.name(), "a.pdf");
    /// ```
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            mime_type: None,
            description: None,
        }
    }

    /// With a MIME type.
    ///
    /// ```
    /// let link = toolsmith::tool::ResourceLink::new("file:///a.txt", "a.txt").mime_type("text/plain");
    /// # let _ = link;
    /// ```
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a description.
    ///
    /// ```
    /// let link = toolsmith::tool::ResourceLink::new("file:///a.txt", "a.txt").description("notes");
    /// # let _ = link;
    /// ```
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The URI.
    ///
    /// ```
    /// assert_eq!(toolsmith::tool::ResourceLink::new("file:///a", "a").uri(), "file:///a");
    /// ```
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The name.
    ///
    /// ```
    /// assert_eq!(toolsmith::tool::ResourceLink::new("file:///a", "a").name(), "a");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A resource embedded in the result: text or bytes, with its URI. Sent as an MCP `resource`
/// block (bytes base64-encoded as its `blob`).
///
/// ```
/// let csv = toolsmith::tool::EmbeddedResource::text("file:///tmp/a.csv", "a,b\n1,2\n").mime_type("text/csv");
/// let zip = toolsmith::tool::EmbeddedResource::blob("file:///tmp/a.zip", vec![0x50, 0x4b], "application/zip");
/// assert_eq!(csv.uri(), "file:///tmp/a.csv");
/// # let _ = zip;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedResource {
    pub(super) uri: String,
    pub(super) mime_type: Option<String>,
    pub(super) body: Body,
}

/// What an embedded resource holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Body {
    Text(String),
    Blob(Vec<u8>),
}

impl EmbeddedResource {
    /// A text resource (MIME type `text/plain` unless set with [`mime_type`](Self::mime_type)).
    ///
    /// ```
    /// let readme = toolsmith::tool::EmbeddedResource::text("file:///README", "hello");
    /// # let _ = readme;
    /// ```
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: Some("text/plain".into()),
            body: Body::Text(text.into()),
        }
    }

    /// A binary resource of `mime_type`.
    ///
    /// ```
    /// let bin = toolsmith::tool::EmbeddedResource::blob("file:///a.bin", vec![1, 2], "application/octet-stream");
    /// # let _ = bin;
    /// ```
    pub fn blob(
        uri: impl Into<String>,
        data: impl Into<Vec<u8>>,
        mime_type: impl Into<String>,
    ) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: Body::Blob(data.into()),
        }
    }

    /// With another MIME type.
    ///
    /// ```
    /// let md = toolsmith::tool::EmbeddedResource::text("file:///a.md", "# A").mime_type("text/markdown");
    /// # let _ = md;
    /// ```
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The URI.
    ///
    /// ```
    /// assert_eq!(toolsmith::tool::EmbeddedResource::text("file:///a", "").uri(), "file:///a");
    /// ```
    pub fn uri(&self) -> &str {
        &self.uri
    }
}
