//! [`Resources`]: what a call tells the clients about the server's resources (one changed,
//! the list changed). The serving side provides where it goes ([`Updates`]): to the sessions
//! that subscribed to the URI, and to every session for the list.

use std::sync::Arc;

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
/// # let _ = rename_project;
/// ```
///
/// Where no client can hear it (the `call` command, a stateless HTTP request), it does
/// nothing.
#[derive(Clone, Default)]
pub struct Resources(pub(crate) Option<Arc<dyn Updates>>);

impl Resources {
    /// `uri` changed: every session subscribed to it is told (`notifications/resources/updated`).
    ///
    /// ```
    /// fn after_write(resources: &toolsmith::context::Resources) {
    ///     resources.updated("notes://3");
    /// }
    /// # let _ = after_write;
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
    /// fn after_import(resources: &toolsmith::context::Resources) {
    ///     resources.list_changed();
    /// }
    /// # let _ = after_import;
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
