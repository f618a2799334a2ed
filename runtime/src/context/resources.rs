//! [`Resources`]: what a call tells the clients about the server's resources (one changed,
//! the list changed). The serving side provides where it goes ([`Updates`]): to the sessions
//! that subscribed to the URI, and to every session for the list.

use std::sync::Arc;

/// The most URIs one session may be subscribed to at once: a client cannot grow the server's
/// memory without bound by subscribing to every URI a template matches. The server's
/// subscriptions hold to it, and so does a session's record replicas share.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// The longest URI a session may subscribe to, in bytes.
pub(crate) const MAX_SUBSCRIBED_URI: usize = 4096;

/// Where a server's resource notifications go, provided by the side that serves it. Never
/// blocks: sending happens in the background.
pub(crate) trait Updates: Send + Sync {
    fn updated(&self, uri: &str);
    fn list_changed(&self);
}

/// Tells clients that resources changed: a tool that writes what a resource shows calls
/// [`Resources::updated`], so that each client subscribed to that URI hears
/// `notifications/resources/updated` and reads it again. A context parameter, like
/// [`State`](crate::State).
///
/// ```
/// use toolsmith::{context::Resources, tool};
///
/// /// Rename the project.
/// ///
/// /// # Arguments
/// /// * `name` - The new name.
/// #[tool(destructive = false, idempotent, closed_world)]
/// fn rename_project(resources: Resources, name: String) -> String {
///     resources.updated("project://settings");
///     format!("renamed to {name}")
/// }
///
/// // The server fills it: the client sends only `name`.
/// let rename = toolsmith::Registry::global().get("rename_project").unwrap();
/// let properties = rename.input_schema()["properties"].as_object().unwrap();
/// assert_eq!(properties.keys().collect::<Vec<_>>(), ["name"]);
/// // Called from Rust, no client hears it.
/// assert_eq!(rename_project(Resources::default(), "Atlas".into()), "renamed to Atlas");
/// ```
///
/// Where no client can hear it (the `call` command, a stateless HTTP request), it does
/// nothing.
#[derive(Clone, Default)]
pub struct Resources(pub(crate) Option<Arc<dyn Updates>>);

impl Resources {
    /// `uri` changed: every session subscribed to it is told (`notifications/resources/updated`).
    ///
    /// ```no_run
    /// // Not run: only a client subscribed to the URI hears it (`resources/subscribe` over
    /// // stdio or HTTP), and the test client does not subscribe.
    /// use toolsmith::{context::Resources, tool};
    ///
    /// /// Replace the text of a note.
    /// ///
    /// /// # Arguments
    /// /// * `note_id` - The note.
    /// /// * `text` - Its new text.
    /// #[tool(destructive, idempotent, closed_world)]
    /// fn replace_note_text(resources: Resources, note_id: u64, text: String) -> String {
    ///     resources.updated(format!("notes://{note_id}"));
    ///     format!("note {note_id}: {text}")
    /// }
    ///
    /// #[tokio::main]
    /// async fn main() -> Result<(), toolsmith::Error> {
    ///     toolsmith::serve_stdio().await
    /// }
    /// ```
    pub fn updated(&self, uri: impl AsRef<str>) {
        if let Some(updates) = &self.0 {
            updates.updated(uri.as_ref());
        }
    }

    /// The list of resources changed: every session is told
    /// (`notifications/resources/list_changed`).
    ///
    /// ```
    /// use toolsmith::{context::Resources, resource, tool};
    ///
    /// /// The latest import.
    /// #[resource(uri = "imports://latest")]
    /// fn latest_import() -> String {
    ///     "3 notes".into()
    /// }
    ///
    /// /// Import notes: each becomes a resource.
    /// #[tool(destructive = false, closed_world)]
    /// fn import_notes_now(resources: Resources) -> String {
    ///     resources.list_changed();
    ///     "imported".into()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|t| t.name() == "import_notes_now"));
    /// let client = toolsmith::testing::Client::connect(server).await.unwrap();
    /// client.list_resources().await.unwrap(); // a client that listed resources hears of changes
    /// client.call("import_notes_now", serde_json::json!({})).await.unwrap();
    /// # for _ in 0..500 {
    /// #     if client.resource_list_changes() > 0 { break }
    /// #     tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    /// # }
    /// assert_eq!(client.resource_list_changes(), 1);
    /// # }
    /// ```
    pub fn list_changed(&self) {
        if let Some(updates) = &self.0 {
            updates.list_changed();
        }
    }
}

impl std::fmt::Debug for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resources")
            .field("heard", &self.0.is_some())
            .finish()
    }
}
