//! Every content return form compiles, with icons in both forms.

use toolsmith::{
    ToolError, tool, tool::Audio, tool::Content, tool::EmbeddedResource, tool::Image,
    tool::ResourceLink, tool::ToolOutput,
};

/// An image.
#[tool(
    read_only,
    icon = "https://example.com/a.png",
    icon = "data:image/png;base64,iVBORw0KGgo="
)]
fn image() -> Image {
    Image::png(vec![1])
}

/// Audio, or an error shown.
#[tool(read_only, icons = ["https://example.com/b.svg"])]
async fn audio() -> Result<Audio, ToolError> {
    Ok(Audio::wav(vec![1]))
}

/// A link, or an error masked.
#[tool(read_only)]
fn link() -> Result<toolsmith::tool::ResourceLink, std::io::Error> {
    Ok(ResourceLink::new("file:///a", "a"))
}

/// An embedded resource.
#[tool(read_only)]
fn embedded() -> toolsmith::tool::EmbeddedResource {
    EmbeddedResource::text("file:///a", "a")
}

/// Blocks.
#[tool(read_only)]
fn blocks() -> Vec<Content> {
    vec![Content::from("a")]
}

/// Images.
#[tool(read_only)]
fn images() -> Vec<Image> {
    vec![]
}

/// One block.
#[tool(read_only)]
fn one() -> Content {
    Content::from("a")
}

/// A result by hand.
#[tool(read_only)]
fn by_hand() -> ToolOutput {
    ToolOutput::new().text("a")
}

mod model {
    /// The program's own `Image`: structured content, not toolsmith's.
    #[derive(serde::Serialize, schemars::JsonSchema)]
    pub struct Image {
        pub width: u32,
    }
}

/// The program's own type of the same name, under its path.
#[tool(read_only)]
fn own_image() -> model::Image {
    model::Image { width: 1 }
}

#[test]
fn compiles_and_works() {
    let _ = (
        image(),
        link(),
        embedded(),
        blocks(),
        images(),
        one(),
        by_hand(),
        own_image(),
    );
}
