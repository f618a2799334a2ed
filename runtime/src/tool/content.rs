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
/// fn render_report() -> ToolOutput {
///     ToolOutput::new()
///         .text("3 rows")
///         .block(Image::png(vec![0x89, b'P', b'N', b'G']))
///         .structured(serde_json::json!({"rows": 3}))
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "render_report"));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let report = client.call("render_report", serde_json::json!({})).await.unwrap();
/// assert_eq!(report.text(), "3 rows");
/// assert_eq!(report.content()[1].as_image().unwrap().mime_type, "image/png");
/// assert_eq!(report.structured(), Some(&serde_json::json!({"rows": 3})));
/// let listed = client.list_tools().await.unwrap();
/// assert!(listed[0].output_schema.is_none());
/// # }
/// ```
///
/// Structured content goes out as the result's `structuredContent`; the tool has no
/// `outputSchema`. Clients that only read text see the blocks alone, so say in a text
/// block what matters.
#[derive(Debug, Default)]
pub struct ToolOutput {
    content: Vec<Content>,
    structured: Option<Outcome>,
    /// An error result (`isError: true`), its blocks as they are.
    error: bool,
    /// The result's `_meta`.
    meta: Option<rmcp::model::MetaObject>,
}

impl ToolOutput {
    /// An empty result.
    ///
    /// ```
    /// /// Do nothing, and say nothing.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn say_nothing() -> toolsmith::tool::ToolOutput {
    ///     toolsmith::tool::ToolOutput::new()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "say_nothing"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let nothing = client.call("say_nothing", serde_json::json!({})).await.unwrap();
    /// assert!(nothing.content().is_empty() && nothing.structured().is_none());
    /// # }
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a text block.
    ///
    /// ```
    /// /// Say it is done, twice.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn done_twice() -> toolsmith::tool::ToolOutput {
    ///     toolsmith::tool::ToolOutput::new().text("done").text("really")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "done_twice"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let done = client.call("done_twice", serde_json::json!({})).await.unwrap();
    /// assert_eq!(done.content().len(), 2);
    /// assert_eq!(done.text(), "done\nreally");
    /// # }
    /// ```
    pub fn text(self, text: impl Into<String>) -> Self {
        self.block(Content::Text(text.into()))
    }

    /// Adds a block.
    ///
    /// ```
    /// use toolsmith::tool::{Audio, ToolOutput};
    ///
    /// /// Play the chime.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn play_chime() -> ToolOutput {
    ///     ToolOutput::new().text("chime:").block(Audio::wav(vec![0; 44]))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "play_chime"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let chime = client.call("play_chime", serde_json::json!({})).await.unwrap();
    /// let audio = serde_json::to_value(&chime.content()[1]).unwrap();
    /// assert_eq!((audio["type"].as_str(), audio["mimeType"].as_str()), (Some("audio"), Some("audio/wav")));
    /// # }
    /// ```
    pub fn block(mut self, block: impl Into<Content>) -> Self {
        self.content.push(block.into());
        self
    }

    /// Sets the structured content. A value that cannot be JSON (a map with non-string
    /// keys, a float that is not finite) makes the call a masked failure. Revisions before
    /// 2026-07-28 allow only an object there: to a client of one, any other value (an array,
    /// a number) arrives as text content instead, so return a struct where a client should
    /// find `structuredContent`.
    ///
    /// ```
    /// use toolsmith::tool::ToolOutput;
    ///
    /// #[derive(serde::Serialize)]
    /// struct Numbers {
    ///     first: Vec<f64>,
    /// }
    ///
    /// /// The first three numbers, or a value JSON cannot hold.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn first_numbers(broken: bool) -> ToolOutput {
    ///     let first = if broken { vec![1.0, f64::NAN] } else { vec![1.0, 2.0, 3.0] };
    ///     ToolOutput::new().text("the first numbers").structured(Numbers { first })
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "first_numbers"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let numbers = client.call("first_numbers", serde_json::json!({"broken": false})).await.unwrap();
    /// assert_eq!(numbers.structured(), Some(&serde_json::json!({"first": [1.0, 2.0, 3.0]})));
    /// let masked = client.call("first_numbers", serde_json::json!({"broken": true})).await;
    /// assert!(masked.is_err());
    /// # }
    /// ```
    pub fn structured(mut self, value: impl Serialize) -> Self {
        self.structured = Some(super::output::json(value));
        self
    }

    /// Makes it an error result (`isError: true`) with its blocks and structured content as
    /// they are: a failure that shows more than words (a screenshot of the page that did not
    /// load), or an error result passed on from another server. A [`ToolError`](crate::ToolError)
    /// is the way for an error that is one message.
    ///
    /// ```
    /// use toolsmith::tool::{Image, ToolOutput};
    ///
    /// /// Load a page, and show what came instead when it does not load.
    /// #[toolsmith::tool(read_only)]
    /// fn load_page(url: String) -> ToolOutput {
    ///     ToolOutput::new()
    ///         .text(format!("{url} did not load: a login wall"))
    ///         .block(Image::png(vec![0x89, b'P', b'N', b'G']))
    ///         .structured(serde_json::json!({"status": 401}))
    ///         .as_error()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "load_page"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let failed = client.call_raw("load_page", serde_json::json!({"url": "https://a.example"})).await.unwrap();
    /// assert!(failed.is_error());
    /// assert_eq!(failed.content().len(), 2);
    /// assert_eq!(failed.content()[1].as_image().unwrap().mime_type, "image/png");
    /// assert_eq!(failed.structured(), Some(&serde_json::json!({"status": 401})));
    /// # }
    /// ```
    pub fn as_error(mut self) -> Self {
        self.error = true;
        self
    }

    /// Sets the result's `_meta`: what a result says beside its content, for the client's
    /// program (a trace id, an error's kind passed on from another server). A key the server
    /// sets itself on an error result ([`META_ERROR`](crate::error::META_ERROR)) is taken from
    /// here when given.
    ///
    /// ```
    /// use toolsmith::tool::ToolOutput;
    ///
    /// /// Answer, and say which trace it was.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn traced_answer() -> ToolOutput {
    ///     let mut meta = toolsmith::rmcp::model::MetaObject::new();
    ///     meta.insert("example.com/trace".into(), "abc123".into());
    ///     ToolOutput::new().text("42").meta(meta)
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "traced_answer"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let answer = client.call("traced_answer", serde_json::json!({})).await.unwrap();
    /// let meta = answer.result().meta.as_ref().unwrap();
    /// assert_eq!(meta.get("example.com/trace"), Some(&serde_json::json!("abc123")));
    /// # }
    /// ```
    pub fn meta(mut self, meta: rmcp::model::MetaObject) -> Self {
        self.meta = Some(meta);
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
        let output = match self.error {
            true => Output::Error(content, structured),
            false => Output::Content(content, structured),
        };
        match self.meta {
            Some(meta) => Outcome::Ok(Output::Meta(Box::new(output), meta)),
            None => Outcome::Ok(output),
        }
    }
}

/// A content return type's check (used by `#[tool]`-generated code).
#[doc(hidden)]
pub const fn assert_content<T: IntoContent>() {}

#[cfg(test)]
mod tests;
