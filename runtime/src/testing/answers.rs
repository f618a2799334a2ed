//! What the test client's resources, prompts and completions answer, typed: a read's
//! contents, a prompt's messages, a completion's candidates; and what to complete.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{PromptMessage, Reference, ResourceContents};
use serde::de::DeserializeOwned;

/// What a `resources/read` returned ([`Client::read_resource`](super::Client::read_resource)).
///
/// ```
/// fn check(read: &toolsmith::testing::ReadOutcome) {
///     assert_eq!(read.mime_type(), Some("application/json"));
///     let value: serde_json::Value = read.data().unwrap();
///     # let _ = value;
/// }
/// ```
#[derive(Debug, Clone)]
pub struct ReadOutcome {
    pub(super) contents: Vec<ResourceContents>,
}

impl ReadOutcome {
    /// Every content, as the server sent it.
    ///
    /// ```
    /// fn count(read: &toolsmith::testing::ReadOutcome) -> usize {
    ///     read.contents().len()
    /// }
    /// ```
    pub fn contents(&self) -> &[ResourceContents] {
        &self.contents
    }

    /// The text contents, joined by newlines.
    ///
    /// ```
    /// fn says_hello(read: &toolsmith::testing::ReadOutcome) -> bool {
    ///     read.text().contains("hello")
    /// }
    /// ```
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .contents
            .iter()
            .filter_map(|c| match c {
                ResourceContents::TextResourceContents { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// The first blob's bytes, decoded from base64.
    ///
    /// ```
    /// fn is_png(read: &toolsmith::testing::ReadOutcome) -> bool {
    ///     read.blob().is_some_and(|bytes| bytes.starts_with(b"\x89PNG"))
    /// }
    /// ```
    pub fn blob(&self) -> Option<Vec<u8>> {
        self.contents.iter().find_map(|c| match c {
            ResourceContents::BlobResourceContents { blob, .. } => STANDARD.decode(blob).ok(),
            _ => None,
        })
    }

    /// The first content's MIME type.
    ///
    /// ```
    /// fn is_json(read: &toolsmith::testing::ReadOutcome) -> bool {
    ///     read.mime_type() == Some("application/json")
    /// }
    /// ```
    pub fn mime_type(&self) -> Option<&str> {
        self.contents.first().and_then(|c| match c {
            ResourceContents::TextResourceContents { mime_type, .. }
            | ResourceContents::BlobResourceContents { mime_type, .. } => mime_type.as_deref(),
            _ => None,
        })
    }

    /// The text, decoded from JSON as a `T`.
    ///
    /// ```
    /// #[derive(serde::Deserialize)]
    /// struct Note { title: String }
    ///
    /// fn title(read: &toolsmith::testing::ReadOutcome) -> String {
    ///     read.data::<Note>().unwrap().title
    /// }
    /// ```
    pub fn data<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.text())
    }
}

/// What a `prompts/get` returned ([`Client::get_prompt`](super::Client::get_prompt)).
///
/// ```
/// fn first_role(prompt: &toolsmith::testing::PromptOutcome) -> Option<String> {
///     let role = &prompt.messages.first()?.role;
///     Some(format!("{role:?}"))
/// }
/// ```
#[derive(Debug, Clone)]
pub struct PromptOutcome {
    /// Its description, if the server sent one.
    pub description: Option<String>,
    /// Its messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl PromptOutcome {
    /// The text of every text message, joined by newlines.
    ///
    /// ```
    /// fn asks_for_a_summary(prompt: &toolsmith::testing::PromptOutcome) -> bool {
    ///     prompt.text().contains("Summarize")
    /// }
    /// ```
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .messages
            .iter()
            .filter_map(|m| m.content.as_text().map(|t| t.text.as_str()))
            .collect();
        texts.join("\n")
    }
}

/// What a `completion/complete` returned ([`Client::complete`](super::Client::complete)).
///
/// ```
/// fn complete(answer: &toolsmith::testing::Completions) -> bool {
///     answer.values.len() as u32 == answer.total.unwrap_or(0) && !answer.has_more
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completions {
    /// The candidates (at most 100).
    pub values: Vec<String>,
    /// How many there are in all.
    pub total: Option<u32>,
    /// Whether there are more than `values`.
    pub has_more: bool,
}

/// What to complete: a prompt's argument or a resource template's variable, with the value
/// typed so far and the other arguments' values.
///
/// ```
/// use toolsmith::testing::Complete;
///
/// let tag = Complete::prompt("summarize_notes", "tag", "wo");
/// let id = Complete::resource("notes://{note_id}", "note_id", "1").with("other", "x");
/// # let _ = (tag, id);
/// ```
#[derive(Debug, Clone)]
pub struct Complete {
    pub(super) reference: Reference,
    pub(super) argument: String,
    pub(super) value: String,
    pub(super) context: std::collections::HashMap<String, String>,
}

impl Complete {
    /// An argument of prompt `name`.
    ///
    /// ```
    /// let _ = toolsmith::testing::Complete::prompt("summarize_notes", "tag", "w");
    /// ```
    pub fn prompt(name: &str, argument: &str, value: &str) -> Self {
        Complete::of(Reference::for_prompt(name), argument, value)
    }

    /// A variable of the resource template `template` (as declared, `notes://{note_id}`, or
    /// a URI it matches).
    ///
    /// ```
    /// let _ = toolsmith::testing::Complete::resource("notes://{note_id}", "note_id", "");
    /// ```
    pub fn resource(template: &str, variable: &str, value: &str) -> Self {
        Complete::of(Reference::for_resource(template), variable, value)
    }

    fn of(reference: Reference, argument: &str, value: &str) -> Self {
        Complete {
            reference,
            argument: argument.to_owned(),
            value: value.to_owned(),
            context: Default::default(),
        }
    }

    /// With another argument's value, as the client knows it.
    ///
    /// ```
    /// let _ = toolsmith::testing::Complete::prompt("translate", "to", "fr").with("from", "en");
    /// ```
    pub fn with(mut self, argument: &str, value: &str) -> Self {
        self.context.insert(argument.to_owned(), value.to_owned());
        self
    }
}
