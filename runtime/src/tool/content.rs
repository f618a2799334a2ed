//! Rich tool results: what a tool may return besides text and JSON. Images and audio (their
//! bytes go out base64-encoded), links to resources, embedded resources, several blocks in
//! order ([`Content`] in a `Vec`), or a whole result built by hand ([`ToolOutput`]).
//!
//! None of these gives the tool an `outputSchema`: the macro knows the return type, and a
//! type that is not content is a compile error at the return type.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{ContentBlock, Resource, ResourceContents};
use serde::Serialize;
use serde_json::Value;

use super::output::{Outcome, Output};

/// An image: bytes and a MIME type, sent as an MCP `image` block.
///
/// ```
/// use toolsmith::{Image, tool};
///
/// /// A small PNG.
/// #[tool(read_only, closed_world)]
/// fn pixel() -> Image {
///     Image::png(vec![0x89, b'P', b'N', b'G' /* ... */])
/// }
///
/// assert_eq!(pixel().mime_type(), "image/png");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    data: Vec<u8>,
    mime_type: String,
}

/// Audio: bytes and a MIME type, sent as an MCP `audio` block.
///
/// ```
/// let clip = toolsmith::Audio::wav(vec![0u8; 44]);
/// assert_eq!(clip.mime_type(), "audio/wav");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audio {
    data: Vec<u8>,
    mime_type: String,
}

macro_rules! media {
    ($ty:ident, $what:literal, $example:literal, $($ctor:ident => $mime:literal),*) => {
        impl $ty {
            #[doc = concat!("An ", $what, " of `mime_type` made of `data`.")]
            ///
            /// ```
            #[doc = concat!("let media = toolsmith::", stringify!($ty), "::new(vec![1, 2], \"", $example, "\");")]
            /// assert_eq!(media.data(), [1, 2]);
            /// ```
            pub fn new(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
                $ty {
                    data: data.into(),
                    mime_type: mime_type.into(),
                }
            }

            $(
                #[doc = concat!("An ", $what, " of type `", $mime, "`.")]
                ///
                /// ```
                #[doc = concat!("let media = toolsmith::", stringify!($ty), "::", stringify!($ctor), "(vec![1]);")]
                #[doc = concat!("assert_eq!(media.mime_type(), \"", $mime, "\");")]
                /// ```
                pub fn $ctor(data: impl Into<Vec<u8>>) -> Self {
                    Self::new(data, $mime)
                }
            )*

            /// The bytes.
            ///
            /// ```
            #[doc = concat!("assert_eq!(toolsmith::", stringify!($ty), "::new(vec![7], \"", $example, "\").data(), [7]);")]
            /// ```
            pub fn data(&self) -> &[u8] {
                &self.data
            }

            /// The MIME type.
            ///
            /// ```
            #[doc = concat!("let media = toolsmith::", stringify!($ty), "::new(vec![], \"", $example, "\");")]
            #[doc = concat!("assert_eq!(media.mime_type(), \"", $example, "\");")]
            /// ```
            pub fn mime_type(&self) -> &str {
                &self.mime_type
            }
        }
    };
}

media!(Image, "image", "image/png", png => "image/png", jpeg => "image/jpeg", gif => "image/gif", webp => "image/webp", svg => "image/svg+xml");
media!(Audio, "audio clip", "audio/wav", wav => "audio/wav", mp3 => "audio/mpeg", ogg => "audio/ogg");

/// A link to a resource the client can fetch: its URI and name, with an optional MIME type
/// and description. Sent as an MCP `resource_link` block.
///
/// ```
/// let link = toolsmith::ResourceLink::new("file:///tmp/report.csv", "report.csv")
///     .mime_type("text/csv")
///     .description("The full report");
/// assert_eq!(link.uri(), "file:///tmp/report.csv");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceLink {
    uri: String,
    name: String,
    mime_type: Option<String>,
    description: Option<String>,
}

impl ResourceLink {
    /// A link to `uri`, called `name`.
    ///
    /// ```
    /// let link = toolsmith::ResourceLink::new("https://example.com/a.pdf", "a.pdf");
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
    /// let link = toolsmith::ResourceLink::new("file:///a.txt", "a.txt").mime_type("text/plain");
    /// # let _ = link;
    /// ```
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a description.
    ///
    /// ```
    /// let link = toolsmith::ResourceLink::new("file:///a.txt", "a.txt").description("notes");
    /// # let _ = link;
    /// ```
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The URI.
    ///
    /// ```
    /// assert_eq!(toolsmith::ResourceLink::new("file:///a", "a").uri(), "file:///a");
    /// ```
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The name.
    ///
    /// ```
    /// assert_eq!(toolsmith::ResourceLink::new("file:///a", "a").name(), "a");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A resource embedded in the result: text or bytes, with its URI. Sent as an MCP `resource`
/// block (bytes base64-encoded as its `blob`).
///
/// ```
/// let csv = toolsmith::EmbeddedResource::text("file:///tmp/a.csv", "a,b\n1,2\n").mime_type("text/csv");
/// let zip = toolsmith::EmbeddedResource::blob("file:///tmp/a.zip", vec![0x50, 0x4b], "application/zip");
/// assert_eq!(csv.uri(), "file:///tmp/a.csv");
/// # let _ = zip;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedResource {
    uri: String,
    mime_type: Option<String>,
    body: Body,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Body {
    Text(String),
    Blob(Vec<u8>),
}

impl EmbeddedResource {
    /// A text resource (MIME type `text/plain` unless set with [`mime_type`](Self::mime_type)).
    ///
    /// ```
    /// let readme = toolsmith::EmbeddedResource::text("file:///README", "hello");
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
    /// let bin = toolsmith::EmbeddedResource::blob("file:///a.bin", vec![1, 2], "application/octet-stream");
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
    /// let md = toolsmith::EmbeddedResource::text("file:///a.md", "# A").mime_type("text/markdown");
    /// # let _ = md;
    /// ```
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The URI.
    ///
    /// ```
    /// assert_eq!(toolsmith::EmbeddedResource::text("file:///a", "").uri(), "file:///a");
    /// ```
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

/// One block of a result, for tools that return several, in order: `Vec<Content>`.
///
/// ```
/// use toolsmith::{Content, Image, tool};
///
/// /// Describe a chart and show it.
/// #[tool(read_only, closed_world)]
/// fn chart() -> Vec<Content> {
///     vec![Content::from("Sales doubled."), Image::png(vec![0x89, b'P', b'N', b'G']).into()]
/// }
/// # assert_eq!(chart().len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Content {
    /// A text block.
    Text(String),
    /// An image block.
    Image(Image),
    /// An audio block.
    Audio(Audio),
    /// A link to a resource.
    ResourceLink(ResourceLink),
    /// An embedded resource.
    Resource(EmbeddedResource),
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text(text.to_owned())
    }
}

impl From<Image> for Content {
    fn from(image: Image) -> Self {
        Content::Image(image)
    }
}

impl From<Audio> for Content {
    fn from(audio: Audio) -> Self {
        Content::Audio(audio)
    }
}

impl From<ResourceLink> for Content {
    fn from(link: ResourceLink) -> Self {
        Content::ResourceLink(link)
    }
}

impl From<EmbeddedResource> for Content {
    fn from(resource: EmbeddedResource) -> Self {
        Content::Resource(resource)
    }
}

impl Content {
    /// The MCP content block.
    fn into_block(self) -> ContentBlock {
        match self {
            Content::Text(text) => ContentBlock::text(text),
            Content::Image(image) => {
                ContentBlock::image(STANDARD.encode(image.data), image.mime_type)
            }
            Content::Audio(audio) => {
                ContentBlock::audio(STANDARD.encode(audio.data), audio.mime_type)
            }
            Content::ResourceLink(link) => {
                let mut resource = Resource::new(link.uri, link.name);
                resource.mime_type = link.mime_type;
                resource.description = link.description;
                ContentBlock::resource_link(resource)
            }
            Content::Resource(resource) => {
                let contents = match resource.body {
                    Body::Text(text) => ResourceContents::text(text, resource.uri),
                    Body::Blob(data) => ResourceContents::blob(STANDARD.encode(data), resource.uri),
                };
                let contents = match resource.mime_type {
                    Some(mime) => contents.with_mime_type(mime),
                    None => contents,
                };
                ContentBlock::resource(contents)
            }
        }
    }
}

/// A whole result built by hand: text and blocks in order, and structured content.
///
/// ```
/// use toolsmith::{Image, ToolOutput, tool};
///
/// /// Render the report.
/// #[tool(read_only, closed_world)]
/// fn report() -> ToolOutput {
///     ToolOutput::new()
///         .text("3 rows")
///         .block(Image::png(vec![0x89, b'P', b'N', b'G']))
///         .structured(serde_json::json!({"rows": 3}))
/// }
/// # let _ = report();
/// ```
///
/// Structured content goes out as the result's `structuredContent`; the tool has no
/// `outputSchema`. Clients that only read text see the blocks alone, so say in a text
/// block what matters.
#[derive(Debug, Default)]
pub struct ToolOutput {
    content: Vec<Content>,
    structured: Option<Outcome>,
}

impl ToolOutput {
    /// An empty result.
    ///
    /// ```
    /// let output = toolsmith::ToolOutput::new();
    /// # let _ = output;
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a text block.
    ///
    /// ```
    /// let output = toolsmith::ToolOutput::new().text("done");
    /// # let _ = output;
    /// ```
    pub fn text(self, text: impl Into<String>) -> Self {
        self.block(Content::Text(text.into()))
    }

    /// Adds a block.
    ///
    /// ```
    /// let output = toolsmith::ToolOutput::new().block(toolsmith::Audio::wav(vec![0; 44]));
    /// # let _ = output;
    /// ```
    pub fn block(mut self, block: impl Into<Content>) -> Self {
        self.content.push(block.into());
        self
    }

    /// Sets the structured content. A value that cannot be JSON (a map with non-string
    /// keys, a float that is not finite) makes the call a masked failure.
    ///
    /// ```
    /// let output = toolsmith::ToolOutput::new().structured(vec![1, 2, 3]);
    /// # let _ = output;
    /// ```
    pub fn structured(mut self, value: impl Serialize) -> Self {
        self.structured = Some(super::output::json(value));
        self
    }
}

/// A type a tool can return as content blocks.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's content",
    label = "not a content type",
    note = "a tool returns `Image`, `Audio`, `ResourceLink`, `EmbeddedResource`, `Content` or `ToolOutput`, a `Vec` of any of them, or one of these inside `Result`"
)]
pub trait IntoContent {
    /// The blocks, and the structured content if any.
    fn into_outcome(self) -> Outcome;
}

fn blocks(content: Vec<ContentBlock>, structured: Option<Value>) -> Outcome {
    Outcome::Ok(Output::Content(content, structured))
}

macro_rules! single {
    ($($ty:ty),*) => {$(
        impl IntoContent for $ty {
            fn into_outcome(self) -> Outcome {
                blocks(vec![Content::from(self).into_block()], None)
            }
        }
    )*};
}

single!(Image, Audio, ResourceLink, EmbeddedResource);

impl IntoContent for Content {
    fn into_outcome(self) -> Outcome {
        blocks(vec![self.into_block()], None)
    }
}

impl<T: Into<Content>> IntoContent for Vec<T> {
    fn into_outcome(self) -> Outcome {
        blocks(
            self.into_iter().map(|c| c.into().into_block()).collect(),
            None,
        )
    }
}

impl IntoContent for ToolOutput {
    fn into_outcome(self) -> Outcome {
        let structured = match self.structured {
            None => None,
            Some(Outcome::Ok(Output::Json(value))) => Some(value),
            Some(failed) => return failed,
        };
        let content = self.content.into_iter().map(Content::into_block).collect();
        blocks(content, structured)
    }
}

/// A content return type's check (used by `#[tool]`-generated code).
#[doc(hidden)]
pub const fn assert_content<T: IntoContent>() {}

#[cfg(test)]
mod tests;
