//! [`ResourceDescription`]: what a resource made at run time says of itself, as data. A
//! [`Resource`](crate::resource::Resource) gives it from
//! [`describe`](crate::resource::Resource::describe).

use crate::item::About;
use crate::prompt::Role;

/// What a [`Resource`](crate::resource::Resource) says of itself: what it shares with tools
/// and prompts ([`About`]: name, title, description, icons, scopes, timeout, origin), its URI
/// (or URI template), MIME type, audience and priority, and the variables it completes. Read
/// once, when the resource is added to a registry.
///
/// Made with [`ResourceDescription::new`] and the `with_` methods; what it does not say has
/// the default of a `#[resource]` without the key. Its fields are public: a resource that
/// wraps another changes the ones it changes and keeps the others.
///
/// ```
/// use toolsmith::resource::ResourceDescription;
///
/// let notes = ResourceDescription::new("notes://{id}", "note")
///     .with_description("A note by its id.")
///     .with_mime_type("text/markdown")
///     .with_completes(["id"]);
/// assert_eq!((notes.uri.as_str(), notes.about.name.as_str()), ("notes://{id}", "note"));
/// assert_eq!(notes.about.description, "A note by its id.");
/// assert_eq!(notes.completes, ["id"]);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ResourceDescription {
    /// Its programmatic name (not empty, no control character), title, description (what it
    /// holds, for the model), icons, scopes (empty: the read scope), timeout of a read, and
    /// origin.
    pub about: About,
    /// The URI (`config://app`), or the URI template (`notes://{id}`): checked when it is
    /// added.
    pub uri: String,
    /// The MIME type of its contents.
    pub mime_type: Option<String>,
    /// Who it is for (the `audience` annotation).
    pub audience: Vec<Role>,
    /// How important it is, from 0.0 to 1.0 (the `priority` annotation; checked when it is
    /// added).
    pub priority: Option<f32>,
    /// The variables of its URI template it completes (`completion/complete`), with
    /// [`Resource::complete`](crate::resource::Resource::complete).
    pub completes: Vec<String>,
}

impl ResourceDescription {
    /// The resource at `uri` (or the template), called `name`; no description, the rest as
    /// a `#[resource]` without the key; its origin the `file:line` of this call.
    ///
    /// ```
    /// let motd = toolsmith::resource::ResourceDescription::new("motd://today", "motd");
    /// assert_eq!(motd.about.description, "");
    /// assert!(motd.mime_type.is_none() && motd.completes.is_empty());
    /// ```
    #[track_caller]
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> ResourceDescription {
        ResourceDescription {
            about: About::new(name, ""),
            uri: uri.into(),
            mime_type: None,
            audience: Vec::new(),
            priority: None,
            completes: Vec::new(),
        }
    }

    /// With this MIME type of its contents.
    ///
    /// ```
    /// let motd = toolsmith::resource::ResourceDescription::new("motd://today", "motd")
    ///     .with_mime_type("text/plain");
    /// assert_eq!(motd.mime_type.as_deref(), Some("text/plain"));
    /// ```
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> ResourceDescription {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// For this audience.
    ///
    /// ```
    /// use toolsmith::prompt::Role;
    ///
    /// let motd = toolsmith::resource::ResourceDescription::new("motd://today", "motd")
    ///     .with_audience([Role::User]);
    /// assert_eq!(motd.audience, [Role::User]);
    /// ```
    #[must_use]
    pub fn with_audience(
        mut self,
        audience: impl IntoIterator<Item = Role>,
    ) -> ResourceDescription {
        self.audience = audience.into_iter().collect();
        self
    }

    /// With this priority, from 0.0 to 1.0.
    ///
    /// ```
    /// let motd = toolsmith::resource::ResourceDescription::new("motd://today", "motd")
    ///     .with_priority(0.5);
    /// assert_eq!(motd.priority, Some(0.5));
    /// ```
    #[must_use]
    pub fn with_priority(mut self, priority: f32) -> ResourceDescription {
        self.priority = Some(priority);
        self
    }

    /// Completing these variables of its URI template.
    ///
    /// ```
    /// let note = toolsmith::resource::ResourceDescription::new("notes://{id}", "note")
    ///     .with_completes(["id"]);
    /// assert_eq!(note.completes, ["id"]);
    /// ```
    #[must_use]
    pub fn with_completes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        variables: I,
    ) -> ResourceDescription {
        self.completes = variables.into_iter().map(Into::into).collect();
        self
    }
}

crate::item::about_builders!(
    ResourceDescription,
    "",
    "toolsmith::resource::ResourceDescription::new(\"notes://{id}\", \"note\")",
    "to read it (instead of the read scope)",
    "a read"
);
