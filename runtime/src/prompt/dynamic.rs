//! [`Prompt`]: a prompt as a value, for prompts made at run time (from templates on disk,
//! another server's). A registry holds both kinds as [`PromptInfo`](crate::prompt::PromptInfo)s: a
//! `#[prompt]`'s static definition and a `Prompt` added with
//! [`Registry::add_prompt`](crate::Registry::add_prompt) differ only in how a get is invoked,
//! and go through the same steps: access by scopes, layers, the engine, the per-call log.

use std::future::Future;
use std::pin::Pin;

use rmcp::model::JsonObject;

use crate::complete::{Candidates, Completion};
use crate::context::CallContext;
use crate::{ToolError, prompt::PromptDescription, prompt::PromptMessage};

/// What a hand-written prompt's get returns: its messages, or an error whose message the
/// client reads.
pub type PromptFuture = Pin<Box<dyn Future<Output = Result<Vec<PromptMessage>, ToolError>> + Send>>;

/// A prompt: what it says of itself ([`describe`](Prompt::describe): a
/// [`PromptDescription`]), and how a `prompts/get` runs ([`get`](Prompt::get)). Object-safe:
/// a registry holds `Arc<dyn Prompt>`. Its description is read once, when the prompt is added
/// to a registry.
///
/// ```
/// use toolsmith::rmcp::model::{JsonObject, PromptArgument};
/// use toolsmith::prompt::{Prompt, PromptDescription, PromptFuture, PromptMessage};
/// use toolsmith::{CallContext, Registry};
///
/// /// Asks for a review of a text.
/// struct Review;
///
/// impl Prompt for Review {
///     fn describe(&self) -> PromptDescription {
///         PromptDescription::new("review")
///             .with_arguments([PromptArgument::new("text").with_required(true)])
///     }
///     fn get(&self, arguments: JsonObject, _: &CallContext) -> PromptFuture {
///         let text = arguments.get("text").and_then(|t| t.as_str()).unwrap_or("").to_owned();
///         Box::pin(async move { Ok(vec![PromptMessage::user(format!("Review: {text}"))]) })
///     }
/// }
///
/// let registry = Registry::new().with_prompt(Review).unwrap();
/// let review = registry.prompt("review").unwrap();
/// assert_eq!(review.arguments_schema()["required"][0], "text");
/// // Two prompts with one name: an error naming both.
/// assert!(registry.with_prompt(Review).is_err());
/// ```
pub trait Prompt: Send + Sync + 'static {
    /// What it says of itself: name, arguments, and the rest a `#[prompt]` declares. Read
    /// once, when it is added to a registry.
    fn describe(&self) -> PromptDescription;

    /// Its messages for `arguments` (each a string, as the client sent it; a required one is
    /// there). The future must be `'static`.
    fn get(&self, arguments: JsonObject, context: &CallContext) -> PromptFuture;

    /// Candidates for its argument `argument` (one its description's
    /// [`completes`](PromptDescription::completes) names), `value` typed so far: by default
    /// none.
    ///
    /// ```
    /// use toolsmith::rmcp::model::JsonObject;
    /// use toolsmith::complete::{Candidates, Completion};
    /// use toolsmith::prompt::{Prompt, PromptDescription, PromptFuture};
    /// use toolsmith::CallContext;
    ///
    /// struct Explain;
    ///
    /// impl Prompt for Explain {
    ///     fn describe(&self) -> PromptDescription {
    ///         PromptDescription::new("explain").with_completes(["topic"])
    ///     }
    ///     fn get(&self, _: JsonObject, _: &CallContext) -> PromptFuture {
    ///         Box::pin(async { Ok(Vec::new()) })
    ///     }
    ///     fn complete<'a>(&'a self, _: &'a str, value: &'a str, _: &'a Completion) -> Candidates<'a> {
    ///         let all = ["ownership", "traits"];
    ///         let found = all.iter().filter(|t| t.starts_with(value)).map(|t| t.to_string());
    ///         Box::pin(std::future::ready(found.collect()))
    ///     }
    /// }
    ///
    /// let registry = toolsmith::Registry::new().with_prompt(Explain).unwrap();
    /// assert_eq!(registry.prompt("explain").unwrap().completes().collect::<Vec<_>>(), ["topic"]);
    /// ```
    fn complete<'a>(
        &'a self,
        argument: &'a str,
        value: &'a str,
        completion: &'a Completion,
    ) -> Candidates<'a> {
        let _ = (argument, value, completion);
        Box::pin(std::future::ready(Vec::new()))
    }
}
