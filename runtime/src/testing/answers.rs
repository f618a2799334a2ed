//! What the test client's resources, prompts and completions answer, typed: a read's
//! contents, a prompt's messages, a completion's candidates; and what to complete.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::{PromptMessage, Reference, ResourceContents};
use serde::de::DeserializeOwned;

/// What a `resources/read` returned ([`Client::read_resource`](super::Client::read_resource)).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Theme {
///     dark: bool,
/// }
///
/// /// The editor's theme.
/// #[toolsmith::resource(uri = "editor://theme")]
/// fn editor_theme() -> Theme {
///     Theme { dark: true }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let read = client.read_resource("editor://theme").await.unwrap();
/// assert_eq!(read.mime_type(), Some("application/json"));
/// let value: serde_json::Value = read.data().unwrap();
/// assert_eq!(value, serde_json::json!({"dark": true}));
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ReadOutcome {
    pub(super) contents: Vec<ResourceContents>,
}

impl ReadOutcome {
    /// Every content, as the server sent it.
    ///
    /// ```
    /// use toolsmith::rmcp::model::ResourceContents;
    ///
    /// /// Today's banner.
    /// #[toolsmith::resource(uri = "banners://today")]
    /// fn todays_banner() -> String {
    ///     "Welcome back.".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let read = client.read_resource("banners://today").await.unwrap();
    /// let [ResourceContents::TextResourceContents { uri, text, .. }] = read.contents() else {
    ///     panic!("one text: {:?}", read.contents());
    /// };
    /// assert_eq!((uri.as_str(), text.as_str()), ("banners://today", "Welcome back."));
    /// # }
    /// ```
    pub fn contents(&self) -> &[ResourceContents] {
        &self.contents
    }

    /// The text contents, joined by newlines.
    ///
    /// ```
    /// /// A greeting.
    /// #[toolsmith::resource(uri = "greetings://hello")]
    /// fn hello_text() -> String {
    ///     "hello, world".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let read = client.read_resource("greetings://hello").await.unwrap();
    /// assert_eq!(read.text(), "hello, world");
    /// # }
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
    /// use toolsmith::tool::Image;
    ///
    /// /// The logo.
    /// #[toolsmith::resource(uri = "icons://logo")]
    /// fn logo_png() -> Image {
    ///     Image::png(b"\x89PNG\r\n".to_vec())
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let read = client.read_resource("icons://logo").await.unwrap();
    /// assert_eq!(read.blob().unwrap(), b"\x89PNG\r\n");
    /// assert_eq!(read.text(), "", "no text content");
    /// # }
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
    /// /// The main style sheet.
    /// #[toolsmith::resource(uri = "styles://main", mime_type = "text/css")]
    /// fn main_css() -> String {
    ///     "body { margin: 0 }".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let read = client.read_resource("styles://main").await.unwrap();
    /// assert_eq!(read.mime_type(), Some("text/css"));
    /// # }
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
    /// #[derive(serde::Serialize, serde::Deserialize)]
    /// struct Profile {
    ///     name: String,
    /// }
    ///
    /// /// The user's profile.
    /// #[toolsmith::resource(uri = "profiles://me")]
    /// fn my_profile() -> Profile {
    ///     Profile { name: "Ada".into() }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let read = client.read_resource("profiles://me").await.unwrap();
    /// assert_eq!(read.data::<Profile>().unwrap().name, "Ada");
    /// assert!(read.data::<Vec<String>>().is_err(), "not a list");
    /// # }
    /// ```
    pub fn data<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.text())
    }
}

/// What a `prompts/get` returned ([`Client::get_prompt`](super::Client::get_prompt)).
///
/// ```
/// use toolsmith::prompt::PromptMessage;
/// use toolsmith::rmcp::model::Role;
///
/// /// Play a librarian.
/// #[toolsmith::prompt]
/// fn play_librarian() -> Vec<PromptMessage> {
///     vec![PromptMessage::user("Play a librarian."), PromptMessage::assistant("Welcome to the library.")]
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let prompt = client.get_prompt("play_librarian", serde_json::json!({})).await.unwrap();
/// assert_eq!(prompt.description.as_deref(), Some("Play a librarian."));
/// let roles: Vec<Role> = prompt.messages.iter().map(|m| m.role.clone()).collect();
/// assert_eq!(roles, [Role::User, Role::Assistant]);
/// # }
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
    /// use toolsmith::{prompt::PromptMessage, tool::Image};
    ///
    /// /// Describe a picture.
    /// #[toolsmith::prompt]
    /// fn describe_picture() -> Vec<PromptMessage> {
    ///     vec![
    ///         PromptMessage::user("Describe this picture."),
    ///         PromptMessage::user(Image::png(vec![0x89, b'P', b'N', b'G'])),
    ///         PromptMessage::user("In one line."),
    ///     ]
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let prompt = client.get_prompt("describe_picture", serde_json::json!({})).await.unwrap();
    /// assert_eq!(prompt.text(), "Describe this picture.\nIn one line."); // the image is no text
    /// # }
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
/// use toolsmith::testing::{Complete, Completions};
///
/// fn numbers(value: &str, _: &toolsmith::complete::Completion) -> Vec<String> {
///     (1..=120).map(|n| n.to_string()).filter(|n| n.starts_with(value)).collect()
/// }
///
/// /// Pick a number.
/// ///
/// /// # Arguments
/// /// * `number` - From 1 to 120.
/// #[toolsmith::prompt(complete(number = numbers))]
/// fn pick_number(number: u32) -> String {
///     format!("You picked {number}.")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let all = client.complete(Complete::prompt("pick_number", "number", "")).await.unwrap();
/// assert_eq!((all.values.len(), all.total, all.has_more), (100, Some(120), true));
/// let elevens = client.complete(Complete::prompt("pick_number", "number", "11")).await.unwrap();
/// let expected = ["11", "110", "111", "112", "113", "114", "115", "116", "117", "118", "119"];
/// assert_eq!(elevens, Completions { values: expected.map(String::from).to_vec(), total: Some(11), has_more: false });
/// # }
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
/// use toolsmith::complete::Completion;
/// use toolsmith::testing::Complete;
///
/// fn tags(value: &str, _: &Completion) -> Vec<String> {
///     ["home", "wonder", "work"].into_iter().filter(|t| t.starts_with(value)).map(String::from).collect()
/// }
///
/// fn sticky_ids(value: &str, _: &Completion) -> Vec<String> {
///     ["1", "12", "2"].into_iter().filter(|i| i.starts_with(value)).map(String::from).collect()
/// }
///
/// /// Summarize the notes with a tag.
/// ///
/// /// # Arguments
/// /// * `tag` - The tag.
/// #[toolsmith::prompt(complete(tag = tags))]
/// fn summarize_tagged(tag: String) -> String {
///     format!("Summarize my notes tagged {tag}.")
/// }
///
/// /// A sticky note.
/// ///
/// /// # Arguments
/// /// * `sticky_id` - Its id.
/// #[toolsmith::resource(uri = "stickies://{sticky_id}", complete(sticky_id = sticky_ids))]
/// fn sticky_note(sticky_id: u64) -> String {
///     format!("sticky {sticky_id}")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
/// let client = toolsmith::testing::Client::connect(server).await.unwrap();
/// let tag = Complete::prompt("summarize_tagged", "tag", "wo");
/// let id = Complete::resource("stickies://{sticky_id}", "sticky_id", "1");
/// assert_eq!(client.complete(tag).await.unwrap().values, ["wonder", "work"]);
/// assert_eq!(client.complete(id).await.unwrap().values, ["1", "12"]);
/// # }
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
    /// fn colors(value: &str, _: &toolsmith::complete::Completion) -> Vec<String> {
    ///     ["black", "blue", "red"].into_iter().filter(|c| c.starts_with(value)).map(String::from).collect()
    /// }
    ///
    /// /// Paint a room.
    /// ///
    /// /// # Arguments
    /// /// * `color` - Which color.
    /// #[toolsmith::prompt(complete(color = colors))]
    /// fn paint_room(color: String) -> String {
    ///     format!("Paint the room {color}.")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let b = toolsmith::testing::Complete::prompt("paint_room", "color", "b");
    /// assert_eq!(client.complete(b).await.unwrap().values, ["black", "blue"]);
    /// # }
    /// ```
    pub fn prompt(name: &str, argument: &str, value: &str) -> Self {
        Complete::of(Reference::for_prompt(name), argument, value)
    }

    /// A variable of the resource template `template` (as declared, `notes://{note_id}`, or
    /// a URI it matches).
    ///
    /// ```
    /// use toolsmith::testing::Complete;
    ///
    /// fn shelves(value: &str, _: &toolsmith::complete::Completion) -> Vec<String> {
    ///     ["art", "astronomy", "biology"].into_iter().filter(|s| s.starts_with(value)).map(String::from).collect()
    /// }
    ///
    /// /// The books of a shelf.
    /// ///
    /// /// # Arguments
    /// /// * `shelf` - Which shelf.
    /// #[toolsmith::resource(uri = "shelves://{shelf}", complete(shelf = shelves))]
    /// fn shelf_books(shelf: String) -> String {
    ///     format!("the books on {shelf}")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let declared = Complete::resource("shelves://{shelf}", "shelf", "a");
    /// assert_eq!(client.complete(declared).await.unwrap().values, ["art", "astronomy"]);
    /// let matched = Complete::resource("shelves://anything", "shelf", "a");
    /// assert_eq!(client.complete(matched).await.unwrap().values, ["art", "astronomy"]);
    /// # }
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
    /// use toolsmith::testing::Complete;
    ///
    /// /// The languages to translate into, given the one translated from.
    /// fn targets(value: &str, completion: &toolsmith::complete::Completion) -> Vec<String> {
    ///     let all: &[&str] = if completion.argument("from") == Some("en") { &["de", "fr"] } else { &["en"] };
    ///     all.iter().filter(|l| l.starts_with(value)).map(|l| l.to_string()).collect()
    /// }
    ///
    /// /// Translate a phrase.
    /// ///
    /// /// # Arguments
    /// /// * `from` - Its language.
    /// /// * `to` - The language wanted.
    /// #[toolsmith::prompt(complete(to = targets))]
    /// fn translate_phrase(from: String, to: String) -> String {
    ///     format!("Translate from {from} to {to}.")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// let from_english = Complete::prompt("translate_phrase", "to", "").with("from", "en");
    /// assert_eq!(client.complete(from_english).await.unwrap().values, ["de", "fr"]);
    /// let unknown = Complete::prompt("translate_phrase", "to", "");
    /// assert_eq!(client.complete(unknown).await.unwrap().values, ["en"]);
    /// # }
    /// ```
    pub fn with(mut self, argument: &str, value: &str) -> Self {
        self.context.insert(argument.to_owned(), value.to_owned());
        self
    }
}
