//! [`PromptDescription`]: what a prompt made at run time says of itself, as data. A
//! [`Prompt`](crate::prompt::Prompt) gives it from
//! [`describe`](crate::prompt::Prompt::describe).

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

crate::item::about_builders!(
    PromptDescription,
    "",
    "toolsmith::prompt::PromptDescription::new(\"greet\")",
    "to get it (instead of the read scope)",
    "a get"
);
