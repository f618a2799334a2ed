//! [`PromptDescription`]: what a prompt made at run time says of itself, as data. A
//! [`Prompt`](crate::prompt::Prompt) gives it from
//! [`describe`](crate::prompt::Prompt::describe).

use std::time::Duration;

use rmcp::model::PromptArgument;

use crate::item::About;

/// What a [`Prompt`](crate::prompt::Prompt) says of itself: what it shares with tools and
/// resources ([`About`]: name, title, description, icons, scopes, timeout, origin), its
/// arguments, and the arguments it completes. Read once, when the prompt is added to a
/// registry.
///
/// Made with [`PromptDescription::new`] and the `with_` methods; what it does not say has the
/// default of a `#[prompt]` without the key. Its fields are public: a prompt that wraps
/// another changes the ones it changes and keeps the others.
///
/// ```
/// use toolsmith::prompt::PromptDescription;
/// use toolsmith::rmcp::model::PromptArgument;
///
/// let review = PromptDescription::new("review")
///     .with_description("Ask for a review of a text.")
///     .with_arguments([PromptArgument::new("text").with_required(true)]);
/// assert_eq!(review.about.name, "review");
/// assert_eq!(review.arguments[0].name, "text");
/// assert!(review.completes.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PromptDescription {
    /// Its name (what a client gets it by: not empty, no control character), title,
    /// description (what it is for), icons, scopes (empty: the read scope), timeout of a
    /// get, and origin.
    pub about: About,
    /// Its arguments, as `prompts/list` shows them.
    pub arguments: Vec<PromptArgument>,
    /// The arguments it completes (`completion/complete`), with
    /// [`Prompt::complete`](crate::prompt::Prompt::complete).
    pub completes: Vec<String>,
}

impl PromptDescription {
    /// The prompt called `name`: no description, no arguments, the rest as a `#[prompt]`
    /// without the key; its origin the `file:line` of this call.
    ///
    /// ```
    /// let greet = toolsmith::prompt::PromptDescription::new("greet");
    /// assert_eq!((greet.about.name.as_str(), greet.about.description.as_str()), ("greet", ""));
    /// assert!(greet.arguments.is_empty());
    /// ```
    #[track_caller]
    pub fn new(name: impl Into<String>) -> PromptDescription {
        PromptDescription {
            about: About::new(name, ""),
            arguments: Vec::new(),
            completes: Vec::new(),
        }
    }

    /// With this human-readable title.
    ///
    /// ```
    /// let greet = toolsmith::prompt::PromptDescription::new("greet").with_title("Greet");
    /// assert_eq!(greet.about.title.as_deref(), Some("Greet"));
    /// ```
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> PromptDescription {
        self.about = self.about.with_title(title);
        self
    }

    /// With this description: what it is for.
    ///
    /// ```
    /// let greet = toolsmith::prompt::PromptDescription::new("greet").with_description("Greet someone.");
    /// assert_eq!(greet.about.description, "Greet someone.");
    /// ```
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> PromptDescription {
        self.about = self.about.with_description(description);
        self
    }

    /// With these icons (`https:` or `data:` URIs).
    ///
    /// ```
    /// let greet = toolsmith::prompt::PromptDescription::new("greet")
    ///     .with_icons(["https://example.com/greet.png"]);
    /// assert_eq!(greet.about.icons, ["https://example.com/greet.png"]);
    /// ```
    #[must_use]
    pub fn with_icons<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        icons: I,
    ) -> PromptDescription {
        self.about = self.about.with_icons(icons);
        self
    }

    /// With these OAuth scopes, all needed to get it (instead of the read scope).
    ///
    /// ```
    /// let greet = toolsmith::prompt::PromptDescription::new("greet").with_scopes(["prompts:greet"]);
    /// assert_eq!(greet.about.scopes, ["prompts:greet"]);
    /// ```
    #[must_use]
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> PromptDescription {
        self.about = self.about.with_scopes(scopes);
        self
    }

    /// With this limit on how long a get may run.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let greet = toolsmith::prompt::PromptDescription::new("greet").with_timeout(Duration::from_secs(1));
    /// assert_eq!(greet.about.timeout, Some(Duration::from_secs(1)));
    /// ```
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> PromptDescription {
        self.about = self.about.with_timeout(timeout);
        self
    }

    /// Saying it comes from `origin`, for messages.
    ///
    /// ```
    /// let greet = toolsmith::prompt::PromptDescription::new("greet").with_origin("templates/greet.md");
    /// assert_eq!(greet.about.origin, "templates/greet.md");
    /// ```
    #[must_use]
    pub fn with_origin(mut self, origin: impl Into<String>) -> PromptDescription {
        self.about = self.about.with_origin(origin);
        self
    }

    /// With these arguments.
    ///
    /// ```
    /// use toolsmith::rmcp::model::PromptArgument;
    ///
    /// let greet = toolsmith::prompt::PromptDescription::new("greet")
    ///     .with_arguments([PromptArgument::new("who")]);
    /// assert_eq!(greet.arguments[0].name, "who");
    /// ```
    #[must_use]
    pub fn with_arguments(
        mut self,
        arguments: impl IntoIterator<Item = PromptArgument>,
    ) -> PromptDescription {
        self.arguments = arguments.into_iter().collect();
        self
    }

    /// Completing these arguments.
    ///
    /// ```
    /// let greet = toolsmith::prompt::PromptDescription::new("greet").with_completes(["who"]);
    /// assert_eq!(greet.completes, ["who"]);
    /// ```
    #[must_use]
    pub fn with_completes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        arguments: I,
    ) -> PromptDescription {
        self.completes = arguments.into_iter().map(Into::into).collect();
        self
    }
}
