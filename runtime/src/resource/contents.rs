//! What a read returns: the function's value as `resources/read` contents. A `String` is
//! text (`text/plain` unless the resource declares a MIME type), bytes a base64 blob
//! (`application/octet-stream` unless declared), an [`Image`](crate::tool::Image) or
//! [`Audio`](crate::tool::Audio) a blob of its own type, any other `Serialize` value JSON text
//! (`application/json`); `Option::None` means there is no such resource, and
//! [`Modified`] dates the contents.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{ContentBlock, MetaObject, ResourceContents};

use crate::tool::output::{Outcome, Output};

/// A resource's value with the time it last changed, sent as `lastModified` (RFC 3339, UTC)
/// in the contents' `_meta`.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use toolsmith::{resource::Modified, resource};
///
/// /// The changelog.
/// #[resource(uri = "docs://changelog", mime_type = "text/markdown")]
/// fn changelog() -> Modified<String> {
///     Modified::new("# 1.0".to_owned(), UNIX_EPOCH + Duration::from_secs(1_700_000_000))
/// }
/// assert_eq!(changelog().last_modified(), "2023-11-14T22:13:20Z");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modified<T> {
    value: T,
    at: SystemTime,
}

impl<T> Modified<T> {
    /// `value`, last changed `at`.
    ///
    /// ```
    /// let now = toolsmith::resource::Modified::new(3, std::time::SystemTime::now());
    /// assert_eq!(*now.value(), 3);
    /// ```
    pub fn new(value: T, at: SystemTime) -> Self {
        Modified { value, at }
    }

    /// The value.
    ///
    /// ```
    /// let m = toolsmith::resource::Modified::new("x", std::time::UNIX_EPOCH);
    /// assert_eq!(*m.value(), "x");
    /// ```
    pub fn value(&self) -> &T {
        &self.value
    }

    /// When it changed, as sent: RFC 3339 in UTC.
    ///
    /// ```
    /// let m = toolsmith::resource::Modified::new((), std::time::UNIX_EPOCH);
    /// assert_eq!(m.last_modified(), "1970-01-01T00:00:00Z");
    /// ```
    pub fn last_modified(&self) -> String {
        rfc3339(self.at)
    }

    /// The value and the time.
    ///
    /// ```
    /// let (value, _at) = toolsmith::resource::Modified::new(1, std::time::UNIX_EPOCH).into_parts();
    /// assert_eq!(value, 1);
    /// ```
    pub fn into_parts(self) -> (T, SystemTime) {
        (self.value, self.at)
    }
}

/// Dates an outcome (`#[resource]`-generated code; not a public API).
#[doc(hidden)]
pub fn modified<T>(value: Modified<T>, ok: impl FnOnce(T) -> Outcome) -> Outcome {
    let (value, at) = value.into_parts();
    match ok(value) {
        Outcome::Ok(output) => Outcome::Ok(Output::Dated(Box::new(output), rfc3339(at))),
        other => other,
    }
}

/// `None`: there is no such resource (`#[resource]`-generated code).
#[doc(hidden)]
pub fn optional<T>(value: Option<T>, ok: impl FnOnce(T) -> Outcome) -> Outcome {
    match value {
        Some(value) => ok(value),
        None => Outcome::Ok(Output::Absent),
    }
}

/// A type a resource can return as JSON text.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a resource's contents: it does not implement `serde::Serialize`",
    label = "a resource returns text, bytes, an image, audio, or a value it sends as JSON",
    note = "derive it: `#[derive(serde::Serialize)]`, or return `String` for plain text"
)]
pub trait ResourceSerialize {}
impl<T: serde::Serialize> ResourceSerialize for T {}

/// The JSON return type's check (`#[resource]`-generated code).
#[doc(hidden)]
pub const fn assert_resource_serialize<T: ResourceSerialize>() {}

/// Bytes: a blob (`#[resource]`-generated code).
#[doc(hidden)]
pub fn blob(bytes: impl Into<Vec<u8>>) -> Outcome {
    Outcome::Ok(Output::Bytes(bytes.into()))
}

/// What went wrong turning an outcome into contents.
pub(crate) enum Unreadable {
    /// `None`: nothing at this URI.
    Absent,
    /// The value cannot be contents (never for what the macro accepts).
    Other(&'static str),
}

/// The contents of a successful read of `uri`, the resource declaring `mime_type`.
pub(crate) fn contents(
    output: Output,
    uri: &str,
    mime_type: Option<&str>,
) -> Result<Vec<ResourceContents>, Unreadable> {
    let text = |text: String, default: &str| ResourceContents::TextResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(mime_type.unwrap_or(default).to_owned()),
        text,
        meta: None,
    };
    let blob = |data: String, default: &str| ResourceContents::BlobResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(mime_type.unwrap_or(default).to_owned()),
        blob: data,
        meta: None,
    };
    Ok(match output {
        Output::Text(value) => vec![text(value, "text/plain")],
        Output::Json(value) | Output::Linked(value, _) => {
            vec![text(value.to_string(), "application/json")]
        }
        Output::Bytes(bytes) => vec![blob(STANDARD.encode(bytes), "application/octet-stream")],
        Output::Content(blocks, _) => blocks
            .into_iter()
            .map(|block| media(block, uri, mime_type))
            .collect::<Result<_, _>>()?,
        Output::Dated(output, at) => {
            let mut all = contents(*output, uri, mime_type)?;
            for content in &mut all {
                let mut meta = MetaObject::new();
                meta.insert("lastModified".into(), at.clone().into());
                *content = content.clone().with_meta(meta);
            }
            all
        }
        Output::Absent => return Err(Unreadable::Absent),
        Output::Contents(contents) => contents,
        Output::Empty | Output::Messages(_) => {
            return Err(Unreadable::Other("it returned no contents"));
        }
        Output::Meta(output, _) => contents(*output, uri, mime_type)?,
        Output::Error(..) => {
            return Err(Unreadable::Other(
                "it returned an error result: a resource fails with an `Err`",
            ));
        }
    })
}

/// An image or audio block as a blob of its own MIME type.
fn media(
    block: ContentBlock,
    uri: &str,
    declared: Option<&str>,
) -> Result<ResourceContents, Unreadable> {
    let (data, mime_type) = match block {
        ContentBlock::Image(image) => (image.data, image.mime_type),
        ContentBlock::Audio(audio) => (audio.data, audio.mime_type),
        ContentBlock::Text(text) => {
            return Ok(ResourceContents::text(text.text, uri)
                .with_mime_type(declared.unwrap_or("text/plain")));
        }
        _ => {
            return Err(Unreadable::Other(
                "a resource is text, bytes, an image or audio",
            ));
        }
    };
    Ok(ResourceContents::BlobResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(declared.map_or(mime_type, str::to_owned)),
        blob: data,
        meta: None,
    })
}

/// `at` as RFC 3339 in UTC, to the second.
fn rfc3339(at: SystemTime) -> String {
    let secs = at
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_rfc3339() {
        let at = |secs| rfc3339(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_735_689_599), "2024-12-31T23:59:59Z");
    }

    #[test]
    fn values_become_contents_of_their_type() {
        let read = |output| contents(output, "x://a", None).ok().unwrap();
        let json = serde_json::to_value(read(Output::Bytes(vec![1, 2]))).unwrap();
        assert_eq!(
            json,
            serde_json::json!([{"uri": "x://a", "mimeType": "application/octet-stream", "blob": "AQI="}])
        );
        let json = serde_json::to_value(read(Output::Json(serde_json::json!({"a": 1})))).unwrap();
        assert_eq!(json[0]["mimeType"], "application/json");
        assert_eq!(json[0]["text"], "{\"a\":1}");
        assert!(matches!(
            contents(Output::Absent, "x://a", None),
            Err(Unreadable::Absent)
        ));
    }
}
