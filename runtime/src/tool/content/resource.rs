//! Resources in a result: a link the client can fetch, or the resource itself, embedded.

/// A link to a resource the client can fetch: its URI and name, with an optional MIME type
/// and description. Sent as an MCP `resource_link` block.
///
/// ```
/// use toolsmith::tool::ResourceLink;
///
/// /// Export the report, and link to it.
/// #[toolsmith::tool(destructive = false, closed_world)]
/// fn share_report() -> ResourceLink {
///     ResourceLink::new("file:///tmp/report.csv", "report.csv")
///         .mime_type("text/csv")
///         .description("The full report")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// assert_eq!(share_report().uri(), "file:///tmp/report.csv"); // still an ordinary function
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "share_report"));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let shared = client.call("share_report", serde_json::json!({})).await.unwrap();
/// assert_eq!(serde_json::to_value(&shared.content()[0]).unwrap(), serde_json::json!({
///     "type": "resource_link",
///     "uri": "file:///tmp/report.csv",
///     "name": "report.csv",
///     "mimeType": "text/csv",
///     "description": "The full report",
/// }));
/// # }
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
    /// use toolsmith::tool::ResourceLink;
    ///
    /// let link = ResourceLink::new("file:///a.txt", "a.txt").mime_type("text/plain");
    /// assert_ne!(link, ResourceLink::new("file:///a.txt", "a.txt"), "none by default");
    /// assert_eq!(link, ResourceLink::new("file:///a.txt", "a.txt").mime_type("text/html").mime_type("text/plain"));
    /// ```
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a description.
    ///
    /// ```
    /// use toolsmith::tool::ResourceLink;
    ///
    /// let link = ResourceLink::new("file:///a.txt", "a.txt").description("notes");
    /// assert_ne!(link, ResourceLink::new("file:///a.txt", "a.txt"), "none by default");
    /// assert_eq!(link.name(), "a.txt", "the name stays");
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
/// use toolsmith::tool::EmbeddedResource;
///
/// /// Export the table, as CSV and zipped.
/// #[toolsmith::tool(destructive = false, closed_world)]
/// fn export_table() -> Vec<EmbeddedResource> {
///     let csv = EmbeddedResource::text("file:///tmp/a.csv", "a,b\n1,2\n").mime_type("text/csv");
///     let zip = EmbeddedResource::blob("file:///tmp/a.zip", vec![0x50, 0x4b], "application/zip");
///     vec![csv, zip]
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "export_table"));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let exported = client.call("export_table", serde_json::json!({})).await.unwrap();
/// let block = |i: usize| serde_json::to_value(&exported.content()[i]).unwrap();
/// assert_eq!(block(0)["resource"], serde_json::json!({
///     "uri": "file:///tmp/a.csv", "mimeType": "text/csv", "text": "a,b\n1,2\n",
/// }));
/// assert_eq!(block(1)["resource"]["blob"], "UEs="); // the bytes, base64-encoded
/// # }
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
    /// use toolsmith::tool::EmbeddedResource;
    ///
    /// let readme = EmbeddedResource::text("file:///README", "hello");
    /// assert_eq!(readme.uri(), "file:///README");
    /// assert_eq!(readme, EmbeddedResource::text("file:///README", "hello").mime_type("text/plain"));
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
    /// /// Export the raw bytes.
    /// #[toolsmith::tool(destructive = false, closed_world)]
    /// fn export_bytes() -> toolsmith::tool::EmbeddedResource {
    ///     toolsmith::tool::EmbeddedResource::blob("file:///a.bin", vec![1, 2], "application/octet-stream")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "export_bytes"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let exported = client.call("export_bytes", serde_json::json!({})).await.unwrap();
    /// let block = serde_json::to_value(&exported.content()[0]).unwrap();
    /// assert_eq!(block["resource"], serde_json::json!({
    ///     "uri": "file:///a.bin", "mimeType": "application/octet-stream", "blob": "AQI=",
    /// }));
    /// # }
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
    /// use toolsmith::tool::EmbeddedResource;
    ///
    /// let md = EmbeddedResource::text("file:///a.md", "# A").mime_type("text/markdown");
    /// assert_ne!(md, EmbeddedResource::text("file:///a.md", "# A"), "no longer text/plain");
    /// assert_eq!(md.uri(), "file:///a.md");
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
