//! What a prompt returns: a `String` (one message from the user) or messages with roles,
//! each one block of [`Content`] (text, an image, audio, a resource or a link to one).

use rmcp::model::Role as WireRole;

use crate::tool::Content;
use crate::tool::output::{Outcome, Output};

/// Who a [`PromptMessage`] is from.
///
/// ```
/// assert_ne!(toolsmith::prompt::Role::User, toolsmith::prompt::Role::Assistant);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// One message of a prompt: a role and one block of content.
///
/// ```
/// use toolsmith::{tool::Image, prompt::PromptMessage, prompt};
///
/// /// Review a screenshot.
/// #[prompt(title = "Review a screenshot")]
/// fn review() -> Vec<PromptMessage> {
///     vec![
///         PromptMessage::user("What is wrong in this screenshot?"),
///         PromptMessage::user(Image::png(vec![0x89, b'P', b'N', b'G'])),
///         PromptMessage::assistant("Let me look."),
///     ]
/// }
/// assert_eq!(review().len(), 3);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    role: Role,
    content: Content,
}

impl PromptMessage {
    /// A message from the user.
    ///
    /// ```
    /// let m = toolsmith::prompt::PromptMessage::user("Hello");
    /// assert_eq!(m.role(), toolsmith::prompt::Role::User);
    /// ```
    pub fn user(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message from the assistant.
    ///
    /// ```
    /// let m = toolsmith::prompt::PromptMessage::assistant("Sure.");
    /// assert_eq!(m.role(), toolsmith::prompt::Role::Assistant);
    /// ```
    pub fn assistant(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content: content.into(),
        }
    }

    /// Who it is from.
    ///
    /// ```
    /// assert_eq!(toolsmith::prompt::PromptMessage::user("x").role(), toolsmith::prompt::Role::User);
    /// ```
    pub fn role(&self) -> Role {
        self.role
    }

    /// Its content.
    ///
    /// ```
    /// let m = toolsmith::prompt::PromptMessage::user("x");
    /// assert_eq!(m.content(), &toolsmith::tool::Content::from("x"));
    /// ```
    pub fn content(&self) -> &Content {
        &self.content
    }

    fn into_wire(self) -> rmcp::model::PromptMessage {
        let role = match self.role {
            Role::User => WireRole::User,
            Role::Assistant => WireRole::Assistant,
        };
        rmcp::model::PromptMessage::new(role, self.content.into_block())
    }
}

/// What a `#[prompt]` function may return. Not a public API.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a prompt returns `String` (one user message), `PromptMessage` or `Vec<PromptMessage>`, not `{Self}`",
    label = "not a prompt's messages",
    note = "build messages with `toolsmith::prompt::PromptMessage::user(...)` and `PromptMessage::assistant(...)`"
)]
pub trait IntoMessages {
    fn into_messages(self) -> Vec<rmcp::model::PromptMessage>;
}

impl IntoMessages for String {
    fn into_messages(self) -> Vec<rmcp::model::PromptMessage> {
        vec![PromptMessage::user(self).into_wire()]
    }
}

impl IntoMessages for PromptMessage {
    fn into_messages(self) -> Vec<rmcp::model::PromptMessage> {
        vec![self.into_wire()]
    }
}

impl IntoMessages for Vec<PromptMessage> {
    fn into_messages(self) -> Vec<rmcp::model::PromptMessage> {
        self.into_iter().map(PromptMessage::into_wire).collect()
    }
}

/// A prompt's return type, for the expansion: its `messages` applies when the type passes
/// [`assert_messages`], else [`PromptFallback`]'s, which does nothing (the check has said
/// why, once).
#[doc(hidden)]
pub struct Prompted<T>(std::marker::PhantomData<T>);

impl<T> Prompted<T> {
    pub const NEW: Self = Prompted(std::marker::PhantomData);
}

impl<T: IntoMessages> Prompted<T> {
    /// A prompt's return value as an outcome.
    pub fn messages(self, value: T) -> Outcome {
        Outcome::Ok(Output::Messages(value.into_messages()))
    }
}

/// What [`Prompted`] falls back to for a type that is not a prompt's messages.
#[doc(hidden)]
pub trait PromptFallback<T>: Sized {
    fn messages(self, _: T) -> Outcome {
        Outcome::Failed(String::new())
    }
}
impl<T> PromptFallback<T> for Prompted<T> {}

/// The return type check, at the return type's span (`#[prompt]`-generated code).
#[doc(hidden)]
pub const fn assert_messages<T: IntoMessages>() {}
