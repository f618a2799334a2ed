//! What an argument completion is: the fn a `complete(arg = fn)` key names, for a resource
//! template's variable or a prompt's argument, and the [`Completion`] it is given. Nothing
//! here knows how completions are served.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

use crate::context::StateMap;
use crate::{Caller, State};

/// The most values one `completion/complete` answer carries (the protocol's cap); the
/// answer says how many there are in all, and that there are more.
///
/// ```
/// assert_eq!(toolsmith::MAX_COMPLETIONS, 100);
/// ```
pub const MAX_COMPLETIONS: usize = 100;

/// What a completion fn knows besides the value typed so far: the other arguments' values
/// the client sent, the server's state, and the caller.
///
/// ```
/// use toolsmith::{Completion, prompt};
///
/// /// Candidates for `topic`, given the `language` already chosen.
/// fn topics(value: &str, completion: &Completion) -> Vec<String> {
///     let all: &[&str] = match completion.argument("language") {
///         Some("rust") => &["ownership", "traits"],
///         _ => &["basics"],
///     };
///     all.iter().filter(|t| t.starts_with(value)).map(|t| t.to_string()).collect()
/// }
///
/// /// Explain a topic.
/// ///
/// /// # Arguments
/// /// * `language` - The language.
/// /// * `topic` - What to explain.
/// #[prompt(complete(topic = topics))]
/// fn explain(language: String, topic: String) -> String {
///     format!("Explain {topic} in {language}.")
/// }
/// # let _ = explain;
/// ```
pub struct Completion {
    pub(crate) arguments: HashMap<String, String>,
    pub(crate) states: StateMap,
    pub(crate) caller: Caller,
}

impl Completion {
    /// The value the client sent for another argument (`context.arguments`), if any.
    ///
    /// ```
    /// fn ids(value: &str, completion: &toolsmith::Completion) -> Vec<String> {
    ///     let _tag = completion.argument("tag");
    ///     vec![value.to_owned()]
    /// }
    /// # let _ = ids;
    /// ```
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).map(String::as_str)
    }

    /// A state the server was given with `.state(value)`, as a `State<T>` parameter gets it.
    ///
    /// ```
    /// struct Names(Vec<String>);
    ///
    /// fn names(value: &str, completion: &toolsmith::Completion) -> Vec<String> {
    ///     let Some(names) = completion.state::<Names>() else { return Vec::new() };
    ///     names.0.iter().filter(|n| n.starts_with(value)).cloned().collect()
    /// }
    /// # let _ = names;
    /// ```
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.states.get::<T>().map(State::from)
    }

    /// Who asks.
    ///
    /// ```
    /// fn mine(_: &str, completion: &toolsmith::Completion) -> Vec<String> {
    ///     completion.caller().subject().map(str::to_owned).into_iter().collect()
    /// }
    /// # let _ = mine;
    /// ```
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// Every other argument's value the client sent (`context.arguments`), in no order.
    ///
    /// ```
    /// fn sent(completion: &toolsmith::Completion) -> usize {
    ///     completion.arguments().count()
    /// }
    /// # let _ = sent;
    /// ```
    pub fn arguments(&self) -> impl Iterator<Item = (&str, &str)> {
        self.arguments.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// The candidates a completion gives, now or later: what a prompt or resource made by hand
/// answers a `completion/complete` with ([`Prompt::complete`](crate::Prompt::complete),
/// [`Resource::complete`](crate::Resource::complete)).
///
/// ```
/// let now: toolsmith::Candidates<'static> = Box::pin(std::future::ready(vec!["rust".to_owned()]));
/// # let _ = now;
/// ```
pub type Candidates<'a> = Pin<Box<dyn Future<Output = Vec<String>> + Send + 'a>>;

/// One `complete(argument = fn)` of a resource or prompt. Not a public API.
#[doc(hidden)]
pub struct CompleteDef {
    /// The variable or argument it completes (checked by the macro).
    pub argument: &'static str,
    pub complete: for<'a> fn(&'a str, &'a Completion) -> Candidates<'a>,
}

/// The candidates of the `complete(arg = fn)` among `declared` that completes `argument`, or
/// `None` when none does.
pub(crate) fn declared<'a>(
    declared: &'static [CompleteDef],
    argument: &str,
    value: &'a str,
    completion: &'a Completion,
) -> Option<Candidates<'a>> {
    declared
        .iter()
        .find(|c| c.argument == argument)
        .map(|c| (c.complete)(value, completion))
}

/// A completion fn: `fn(value: &str, completion: &Completion) -> ...`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot complete an argument: a completion fn takes `(value: &str, completion: &toolsmith::Completion)`",
    label = "not `fn(&str, &Completion) -> Vec<String>`",
    note = "write `fn name(value: &str, completion: &toolsmith::Completion) -> Vec<String>` (or an `async fn`)"
)]
pub trait CompletionFn<'a> {
    type Out;
    fn call(self, value: &'a str, completion: &'a Completion) -> Self::Out;
}

impl<'a, F, R> CompletionFn<'a> for F
where
    F: FnOnce(&'a str, &'a Completion) -> R,
{
    type Out = R;
    fn call(self, value: &'a str, completion: &'a Completion) -> R {
        self(value, completion)
    }
}

/// Calls a completion fn (`#[resource]`- and `#[prompt]`-generated code).
#[doc(hidden)]
pub fn complete_call<'a, F: CompletionFn<'a>>(
    func: F,
    value: &'a str,
    completion: &'a Completion,
) -> F::Out {
    func.call(value, completion)
}

/// A completion fn's return value, for the autoref below: a list of candidates now
/// (`Vec<String>`, `Vec<&str>`, any iterator of strings), or a future of one (an
/// `async fn`). The value sits in a cell, so that a method on a reference can take it.
#[doc(hidden)]
pub struct Completed<T>(std::cell::Cell<Option<T>>);

/// Wraps a completion fn's return value.
#[doc(hidden)]
pub fn completed<T>(value: T) -> Completed<T> {
    Completed(std::cell::Cell::new(Some(value)))
}

/// The sync form: candidates now.
#[doc(hidden)]
pub trait CompleteNow<'a> {
    fn candidates(self) -> Candidates<'a>;
}

/// The async form: candidates later.
#[doc(hidden)]
pub trait CompleteLater<'a> {
    fn candidates(self) -> Candidates<'a>;
}

impl<'a, I> CompleteNow<'a> for &&Completed<I>
where
    I: IntoIterator,
    I::Item: Into<String>,
{
    fn candidates(self) -> Candidates<'a> {
        let values = self
            .0
            .take()
            .into_iter()
            .flatten()
            .map(Into::into)
            .collect();
        Box::pin(std::future::ready(values))
    }
}

impl<'a, F> CompleteLater<'a> for &Completed<F>
where
    F: Future + Send + 'a,
    F::Output: IntoIterator,
    <F::Output as IntoIterator>::Item: Into<String>,
{
    fn candidates(self) -> Candidates<'a> {
        let future = self.0.take();
        Box::pin(async move {
            match future {
                Some(future) => future.await.into_iter().map(Into::into).collect(),
                None => Vec::new(),
            }
        })
    }
}

/// What a completion fn gave, cut to [`MAX_COMPLETIONS`]: `(values, total, has_more)`.
pub(crate) fn capped(mut values: Vec<String>) -> (Vec<String>, u32, bool) {
    let total = values.len();
    values.truncate(MAX_COMPLETIONS);
    (
        values,
        total.min(u32::MAX as usize) as u32,
        total > MAX_COMPLETIONS,
    )
}
