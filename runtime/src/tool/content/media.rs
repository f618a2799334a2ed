//! Images and audio: bytes and a MIME type.

/// An image: bytes and a MIME type, sent as an MCP `image` block.
///
/// ```
/// use toolsmith::{tool::Image, tool};
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
    pub(super) data: Vec<u8>,
    pub(super) mime_type: String,
}

/// Audio: bytes and a MIME type, sent as an MCP `audio` block.
///
/// ```
/// let clip = toolsmith::tool::Audio::wav(vec![0u8; 44]);
/// assert_eq!(clip.mime_type(), "audio/wav");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audio {
    pub(super) data: Vec<u8>,
    pub(super) mime_type: String,
}

macro_rules! media {
    ($ty:ident, $what:literal, $example:literal, $($ctor:ident => $mime:literal),*) => {
        impl $ty {
            #[doc = concat!("An ", $what, " of `mime_type` made of `data`.")]
            ///
            /// ```
            #[doc = concat!("let media = toolsmith::tool::", stringify!($ty), "::new(vec![1, 2], \"", $example, "\");")]
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
                #[doc = concat!("let media = toolsmith::tool::", stringify!($ty), "::", stringify!($ctor), "(vec![1]);")]
                #[doc = concat!("assert_eq!(media.mime_type(), \"", $mime, "\");")]
                /// ```
                pub fn $ctor(data: impl Into<Vec<u8>>) -> Self {
                    Self::new(data, $mime)
                }
            )*

            /// The bytes.
            ///
            /// ```
            #[doc = concat!("assert_eq!(toolsmith::tool::", stringify!($ty), "::new(vec![7], \"", $example, "\").data(), [7]);")]
            /// ```
            pub fn data(&self) -> &[u8] {
                &self.data
            }

            /// The MIME type.
            ///
            /// ```
            #[doc = concat!("let media = toolsmith::tool::", stringify!($ty), "::new(vec![], \"", $example, "\");")]
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
