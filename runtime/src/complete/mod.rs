//! Argument completion: the function a `complete(arg = fn)` key names, for a resource
//! template's variable or a prompt's argument, is given a [`Completion`] (what the user typed,
//! the other arguments) and returns candidates, at most [`MAX_COMPLETIONS`] of which are sent.

// Nothing here knows how completions are served.

pub(crate) mod def;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

use crate::context::StateMap;
use crate::{State, context::Caller};
pub(crate) use def::{CompleteDef, declared};

/// The most values one `completion/complete` answer carries (the protocol's cap); the
/// answer says how many there are in all, and that there are more.
///
/// ```
/// assert_eq!(toolsmith::complete::MAX_COMPLETIONS, 100);
/// ```
pub const MAX_COMPLETIONS: usize = 100;

/// What a completion fn knows besides the value typed so far: the other arguments' values
/// the client sent, the server's state, and the caller.
///
/// ```
/// use toolsmith::{complete::Completion, prompt};
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
    /// fn ids(value: &str, completion: &toolsmith::complete::Completion) -> Vec<String> {
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
    /// fn names(value: &str, completion: &toolsmith::complete::Completion) -> Vec<String> {
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
    /// fn mine(_: &str, completion: &toolsmith::complete::Completion) -> Vec<String> {
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
    /// fn sent(completion: &toolsmith::complete::Completion) -> usize {
    ///     completion.arguments().count()
    /// }
    /// # let _ = sent;
    /// ```
    pub fn arguments(&self) -> impl Iterator<Item = (&str, &str)> {
        self.arguments.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// The candidates a completion gives, now or later: what a prompt or resource made by hand
/// answers a `completion/complete` with ([`Prompt::complete`](crate::prompt::Prompt::complete),
/// [`Resource::complete`](crate::resource::Resource::complete)).
///
/// ```
/// let now: toolsmith::complete::Candidates<'static> = Box::pin(std::future::ready(vec!["rust".to_owned()]));
/// # let _ = now;
/// ```
pub type Candidates<'a> = Pin<Box<dyn Future<Output = Vec<String>> + Send + 'a>>;

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
