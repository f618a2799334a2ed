//! [`Prompt`]: a prompt as a value, for prompts made at run time (from templates on disk,
//! another server's). A registry holds both kinds as [`PromptInfo`](crate::prompt::PromptInfo)s: a
//! `#[prompt]`'s static definition and a `Prompt` added with
//! [`Registry::add_prompt`](crate::Registry::add_prompt) differ only in how a get is invoked,
//! and go through the same steps: access by scopes, layers, the engine, the per-call log.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use rmcp::model::{JsonObject, PromptArgument};

use crate::complete::{Candidates, Completion};
use crate::context::CallContext;
use crate::{ToolError, prompt::PromptMessage};

/// What a hand-written prompt's get returns: its messages, or an error whose message the
/// client reads.
pub type PromptFuture = Pin<Box<dyn Future<Output = Result<Vec<PromptMessage>, ToolError>> + Send>>;

/// A prompt: what a client reads about it, and how a `prompts/get` runs. Object-safe: a
/// registry holds `Arc<dyn Prompt>`.
///
/// Only [`name`](Prompt::name) and [`get`](Prompt::get) must be written; the rest have the
/// defaults of a `#[prompt]` without the key. Everything but `get` is read once, when the
/// prompt is added to a registry.
///
/// ```
/// use toolsmith::rmcp::model::{JsonObject, PromptArgument};
/// use toolsmith::{CallContext, prompt::Prompt, prompt::PromptFuture, prompt::PromptMessage, Registry};
///
/// /// Asks for a review of a text.
/// struct Review;
///
/// impl Prompt for Review {
///     fn name(&self) -> &str { "review" }
///     fn arguments(&self) -> Vec<PromptArgument> {
///         vec![PromptArgument::new("text").with_required(true)]
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
    /// Its name: what a client gets it by.
    fn name(&self) -> &str;

    /// Its messages for `arguments` (each a string, as the client sent it; a required one is
    /// there). The future must be `'static`.
    fn get(&self, arguments: JsonObject, context: &CallContext) -> PromptFuture;

    /// The arguments it completes (`completion/complete`): by default none.
    fn completes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Candidates for its argument `argument` (one [`completes`](Prompt::completes) names),
    /// `value` typed so far.
    ///
    /// ```
    /// use toolsmith::rmcp::model::JsonObject;
    /// use toolsmith::{CallContext, complete::Candidates, complete::Completion, prompt::Prompt, prompt::PromptFuture};
    ///
    /// struct Explain;
    ///
    /// impl Prompt for Explain {
    ///     fn name(&self) -> &str { "explain" }
    ///     fn get(&self, _: JsonObject, _: &CallContext) -> PromptFuture {
    ///         Box::pin(async { Ok(Vec::new()) })
    ///     }
    ///     fn completes(&self) -> Vec<String> { vec!["topic".into()] }
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

    /// Its arguments, as `prompts/list` shows them.
    fn arguments(&self) -> Vec<PromptArgument> {
        Vec::new()
    }

    /// A human-readable title.
    fn title(&self) -> Option<&str> {
        None
    }

    /// What it is for.
    fn description(&self) -> &str {
        ""
    }

    /// Icons: `https:` or `data:` URIs (others are left out when it is added).
    fn icons(&self) -> Vec<String> {
        Vec::new()
    }

    /// The OAuth scopes a caller needs to get it, all of them; empty (the default): the read
    /// scope. Each distinct list is kept for the life of the process: give scopes of your
    /// configuration, never ones read from a request or another server.
    fn scopes(&self) -> Vec<String> {
        Vec::new()
    }

    /// How long a get may run; `None`: no limit.
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// Where it comes from, for messages (two prompts with one name name both): by default
    /// its Rust type.
    fn origin(&self) -> String {
        std::any::type_name::<Self>().to_owned()
    }
}
