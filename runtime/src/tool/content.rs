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

mod linked;
mod media;
mod resource;

pub use linked::Linked;
pub use media::{Audio, Image};
use resource::Body;
pub use resource::{EmbeddedResource, ResourceLink};

/// One block of a result, for tools that return several, in order: `Vec<Content>`.
///
/// ```
/// use toolsmith::{tool::Content, tool::Image, tool};
///
/// /// Describe a chart and show it.
/// #[tool(read_only, closed_world)]
/// fn chart() -> Vec<Content> {
///     vec![Content::from("Sales doubled."), Image::png(vec![0x89, b'P', b'N', b'G']).into()]
/// }
/// # assert_eq!(chart().len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq)]
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
    /// A block as MCP writes it, passed on unchanged (with its annotations and `_meta`):
    /// what another server returned, through a gateway.
    ///
    /// ```
    /// use toolsmith::tool::Content;
    /// use toolsmith::rmcp::model::ContentBlock;
    /// let block = Content::Block(ContentBlock::text("from upstream"));
    /// assert_ne!(block, Content::from("from upstream"));
    /// ```
    Block(ContentBlock),
}

// A passed-on block compares by its fields; its annotations' priority is a float that is
// never NaN (the specification bounds it from 0 to 1).
impl Eq for Content {}

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
    pub(crate) fn into_block(self) -> ContentBlock {
        match self {
            Content::Block(block) => block,
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
/// use toolsmith::{tool::Image, tool::ToolOutput, tool};
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
    /// let output = toolsmith::tool::ToolOutput::new();
    /// # let _ = output;
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a text block.
    ///
    /// ```
    /// let output = toolsmith::tool::ToolOutput::new().text("done");
    /// # let _ = output;
    /// ```
    pub fn text(self, text: impl Into<String>) -> Self {
        self.block(Content::Text(text.into()))
    }

    /// Adds a block.
    ///
    /// ```
    /// let output = toolsmith::tool::ToolOutput::new().block(toolsmith::tool::Audio::wav(vec![0; 44]));
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
    /// let output = toolsmith::tool::ToolOutput::new().structured(vec![1, 2, 3]);
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
