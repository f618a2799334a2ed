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
/// fn explain_topic(language: String, topic: String) -> String {
///     format!("Explain {topic} in {language}.")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
/// use toolsmith::testing::{Client, Complete};
///
/// let client = Client::connect(server).await.unwrap();
/// let rust = Complete::prompt("explain_topic", "topic", "").with("language", "rust");
/// assert_eq!(client.complete(rust).await.unwrap().values, ["ownership", "traits"]);
/// let typed = Complete::prompt("explain_topic", "topic", "t").with("language", "rust");
/// assert_eq!(client.complete(typed).await.unwrap().values, ["traits"]);
/// let no_language = Complete::prompt("explain_topic", "topic", "");
/// assert_eq!(client.complete(no_language).await.unwrap().values, ["basics"]);
/// # }
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
    /// use toolsmith::complete::Completion;
    ///
    /// /// The cities of the country chosen, if one is.
    /// fn cities(value: &str, completion: &Completion) -> Vec<String> {
    ///     let all: &[&str] = match completion.argument("country") {
    ///         Some("it") => &["Milan", "Rome"],
    ///         Some("fr") => &["Lyon", "Paris"],
    ///         _ => &[],
    ///     };
    ///     all.iter().filter(|c| c.starts_with(value)).map(|c| c.to_string()).collect()
    /// }
    ///
    /// /// A city's guide.
    /// ///
    /// /// # Arguments
    /// /// * `country` - Its country.
    /// /// * `city` - The city.
    /// #[toolsmith::resource(uri = "guides://{country}/{city}", complete(city = cities))]
    /// fn city_guide(country: String, city: String) -> String {
    ///     format!("{city}, {country}")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// use toolsmith::testing::{Client, Complete};
    ///
    /// let client = Client::connect(server).await.unwrap();
    /// let in_italy = Complete::resource("guides://{country}/{city}", "city", "").with("country", "it");
    /// assert_eq!(client.complete(in_italy).await.unwrap().values, ["Milan", "Rome"]);
    /// let nowhere = Complete::resource("guides://{country}/{city}", "city", "");
    /// assert!(client.complete(nowhere).await.unwrap().values.is_empty());
    /// # }
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
    ///
    /// /// Write to a colleague.
    /// ///
    /// /// # Arguments
    /// /// * `name` - Whom.
    /// #[toolsmith::prompt(complete(name = names))]
    /// fn write_to_colleague(name: String) -> String {
    ///     format!("Write a short note to {name}.")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// use toolsmith::testing::{Client, Complete};
    ///
    /// let team = Names(vec!["Ada".into(), "Alan".into(), "Grace".into()]);
    /// let client = Client::connect(server.state(team)).await.unwrap();
    /// let a = client.complete(Complete::prompt("write_to_colleague", "name", "A")).await.unwrap();
    /// assert_eq!(a.values, ["Ada", "Alan"]);
    /// # }
    /// ```
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.states.get::<T>().map(State::from)
    }

    /// Who asks.
    ///
    /// ```
    /// /// The caller's own name first, then the shared owner.
    /// fn owners(_: &str, completion: &toolsmith::complete::Completion) -> Vec<String> {
    ///     let mine = completion.caller().subject().map(str::to_owned);
    ///     mine.into_iter().chain(["team".to_owned()]).collect()
    /// }
    ///
    /// /// The boards of an owner.
    /// ///
    /// /// # Arguments
    /// /// * `owner` - Whose boards.
    /// #[toolsmith::resource(uri = "boards://{owner}", complete(owner = owners))]
    /// fn boards_of(owner: String) -> String {
    ///     format!("{owner}'s boards")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// use toolsmith::testing::{Client, Complete};
    ///
    /// // The test client is the local user: anonymous, no subject.
    /// let client = Client::connect(server).await.unwrap();
    /// let owners = client.complete(Complete::resource("boards://{owner}", "owner", "")).await.unwrap();
    /// assert_eq!(owners.values, ["team"]);
    /// # }
    /// ```
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// Every other argument's value the client sent (`context.arguments`), in no order.
    ///
    /// ```
    /// /// Echoes what the client sent besides the value typed.
    /// fn sent(_: &str, completion: &toolsmith::complete::Completion) -> Vec<String> {
    ///     let mut sent: Vec<String> = completion.arguments().map(|(k, v)| format!("{k}={v}")).collect();
    ///     sent.sort();
    ///     sent
    /// }
    ///
    /// /// Translate a text.
    /// ///
    /// /// # Arguments
    /// /// * `from` - Its language.
    /// /// * `to` - The language wanted.
    /// /// * `text` - The text.
    /// #[toolsmith::prompt(complete(to = sent))]
    /// fn translate_text(from: String, to: String, text: String) -> String {
    ///     format!("Translate from {from} to {to}: {text}")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// # let server = toolsmith::Server::with_registry(toolsmith::Registry::from_inventory().unwrap().retain_tools(|_| false));
    /// use toolsmith::testing::{Client, Complete};
    ///
    /// let client = Client::connect(server).await.unwrap();
    /// let to = Complete::prompt("translate_text", "to", "f").with("from", "en").with("text", "hi");
    /// assert_eq!(client.complete(to).await.unwrap().values, ["from=en", "text=hi"]);
    /// # }
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
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let now: toolsmith::complete::Candidates<'static> = Box::pin(std::future::ready(vec!["rust".to_owned()]));
/// assert_eq!(now.await, ["rust"]);
/// # }
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
