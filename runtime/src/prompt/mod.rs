//! Prompts: what `#[prompt]` declares, or a [`Prompt`] made by hand; [`PromptInfo`], a
//! registered prompt with its `prompts/list` entry and the schema of its arguments; and what a
//! prompt returns ([`PromptMessage`]s, each with its [`Role`]). The guide's
//! [items page](crate::guide::items) shows them with resources.

// Inside: the static definition `#[prompt]` generates (`def.rs`), a prompt made by hand
// (`dynamic.rs`), what a prompt returns (`message.rs`). Nothing here knows how prompts are
// served.

pub(crate) mod def;
mod description;
mod dynamic;
mod made;
pub(crate) mod message;

use std::sync::Arc;

use rmcp::model::{Icon, JsonObject, Prompt as McpPrompt, PromptArgument};

use crate::complete::{Candidates, Completion, declared};
use crate::context::CallContext;
use crate::item::Header;
use crate::tool::args::Arguments;
use crate::tool::output::{Outcome, Output};
use crate::tool::param::{Invocation, ParamDef, Timeout};
use crate::tool::schema;
use crate::tool::strings::StringArgs;
use def::PromptDef;

pub use description::PromptDescription;
pub use dynamic::{Prompt, PromptFuture};
#[doc(hidden)]
pub use message::{PromptMessage, Role};

/// A registered prompt: a `#[prompt]`'s, or a [`Prompt`] made by hand.
///
/// ```
/// /// Plan a dinner party.
/// #[toolsmith::prompt]
/// fn plan_dinner(guests: u32) -> String {
///     format!("Plan a dinner for {guests} guests.")
/// }
///
/// let prompt = toolsmith::Registry::global().prompt("plan_dinner").unwrap();
/// assert_eq!(prompt.header().description(), "Plan a dinner party.");
/// assert!(!prompt.is_dynamic());
/// ```
#[derive(Clone)]
pub struct PromptInfo(Arc<Inner>);

/// What a [`PromptInfo`] holds, made once and shared by its clones (a request holds one).
struct Inner {
    run: Run,
    header: Header,
    timeout: Option<Timeout>,
    schema: JsonObject,
    expected: Arc<[String]>,
    strings: StringArgs,
    listed: McpPrompt,
    /// The arguments it completes.
    completes: Box<[Box<str>]>,
}

/// How a get is invoked: the function `#[prompt]` generated, or the `Prompt`'s `get`.
enum Run {
    Declared(&'static PromptDef),
    Made(Arc<dyn Prompt>),
}

impl PromptInfo {
    pub(crate) fn new(def: &'static PromptDef) -> PromptInfo {
        let (schema, expected) = schema::input(def.params);
        let arguments: Vec<PromptArgument> = def
            .params
            .iter()
            .filter(|p| p.is_argument())
            .map(|p| {
                let mut argument = PromptArgument::new(p.name).with_required(p.required);
                argument.description = p.description.map(str::to_owned);
                argument
            })
            .collect();
        let header = Header::of_def(&def.item);
        PromptInfo(Arc::new(Inner {
            listed: listed(&header, arguments),
            strings: StringArgs::of_schema(&schema),
            run: Run::Declared(def),
            header,
            timeout: def.timeout,
            schema,
            expected: expected.into(),
            completes: def.completions.iter().map(|c| c.argument.into()).collect(),
        }))
    }

    /// Its name (default: the function's name): its [`header`](Self::header)'s.
    ///
    /// ```
    /// /// Plan the week's menu.
    /// #[toolsmith::prompt(name = "weekly_menu")]
    /// fn weekly_menu_prompt() -> String {
    ///     "Plan a menu for the week.".into()
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// assert_eq!(registry.prompt("weekly_menu").unwrap().name(), "weekly_menu");
    /// assert!(registry.prompt("weekly_menu_prompt").is_none());
    /// ```
    pub fn name(&self) -> &str {
        self.0.header.name()
    }

    /// What it has in common with tools and resources: name, title, description, icons, the
    /// scopes `scopes = [...]` names instead of the read scope, where it is declared.
    ///
    /// ```
    /// /// Pair a wine with a dish.
    /// #[toolsmith::prompt(title = "Wine pairing")]
    /// fn pair_wine(dish: String) -> String {
    ///     format!("Which wine goes with {dish}?")
    /// }
    ///
    /// let header = toolsmith::Registry::global().prompt("pair_wine").unwrap().header();
    /// assert_eq!(header.title(), Some("Wine pairing"));
    /// assert_eq!(header.description(), "Pair a wine with a dish.");
    /// assert!(header.scopes().is_empty());
    /// ```
    pub fn header(&self) -> &Header {
        &self.0.header
    }

    /// The JSON Schema of its arguments (what `schema NAME` prints), as for a tool's input.
    ///
    /// ```
    /// /// Write a toast.
    /// #[toolsmith::prompt]
    /// fn write_toast(occasion: String, guests: Option<u32>) -> String {
    ///     format!("Write a toast for {occasion} ({guests:?} guests).")
    /// }
    ///
    /// let schema = toolsmith::Registry::global().prompt("write_toast").unwrap().arguments_schema();
    /// assert_eq!(schema["type"], "object");
    /// assert_eq!(schema["properties"]["occasion"]["type"], "string");
    /// assert_eq!(schema["required"], serde_json::json!(["occasion"]));
    /// ```
    pub fn arguments_schema(&self) -> &JsonObject {
        &self.0.schema
    }

    /// The arguments that have a completion (`complete(arg = fn)`).
    ///
    /// ```
    /// use toolsmith::complete::Completion;
    ///
    /// fn cuisines(value: &str, _: &Completion) -> Vec<String> {
    ///     ["french", "thai"].into_iter().filter(|c| c.starts_with(value)).map(Into::into).collect()
    /// }
    ///
    /// /// Suggest a dish.
    /// #[toolsmith::prompt(complete(cuisine = cuisines))]
    /// fn suggest_dish(cuisine: String, vegetarian: Option<bool>) -> String {
    ///     format!("Suggest a {cuisine} dish (vegetarian: {vegetarian:?}).")
    /// }
    ///
    /// let prompt = toolsmith::Registry::global().prompt("suggest_dish").unwrap();
    /// assert_eq!(prompt.completes().collect::<Vec<_>>(), ["cuisine"]);
    /// ```
    pub fn completes(&self) -> impl Iterator<Item = &str> {
        self.0.completes.iter().map(|a| &**a)
    }

    /// Its `prompts/list` entry.
    ///
    /// ```
    /// /// Describe a dish.
    /// ///
    /// /// # Arguments
    /// /// * `dish` - The dish to describe.
    /// #[toolsmith::prompt]
    /// fn describe_dish(dish: String) -> String {
    ///     format!("Describe {dish}.")
    /// }
    ///
    /// let listed = toolsmith::Registry::global().prompt("describe_dish").unwrap().mcp_prompt();
    /// assert_eq!(listed.name, "describe_dish");
    /// let argument = &listed.arguments.as_ref().unwrap()[0];
    /// assert_eq!(argument.name, "dish");
    /// assert_eq!(argument.description.as_deref(), Some("The dish to describe."));
    /// assert_eq!(argument.required, Some(true));
    /// ```
    pub fn mcp_prompt(&self) -> &McpPrompt {
        &self.0.listed
    }

    /// Whether it was made by hand (a [`Prompt`]), not declared with `#[prompt]`.
    ///
    /// ```
    /// # use toolsmith::rmcp::model::JsonObject;
    /// # use toolsmith::{CallContext, prompt::Prompt, prompt::PromptDescription, prompt::PromptFuture, prompt::PromptMessage, Registry};
    /// # struct Greet;
    /// # impl Prompt for Greet {
    /// #     fn describe(&self) -> PromptDescription {
    /// #         PromptDescription::new("greet")
    /// #     }
    /// #     fn get(&self, _: JsonObject, _: &CallContext) -> PromptFuture {
    /// #         Box::pin(async { Ok(vec![PromptMessage::user("Say hello.")]) })
    /// #     }
    /// # }
    /// /// Name a dessert.
    /// #[toolsmith::prompt]
    /// fn name_dessert() -> String {
    ///     "Name a new dessert.".into()
    /// }
    ///
    /// assert!(!Registry::global().prompt("name_dessert").unwrap().is_dynamic());
    /// assert!(Registry::new().with_prompt(Greet).unwrap().prompt("greet").unwrap().is_dynamic());
    /// ```
    pub fn is_dynamic(&self) -> bool {
        matches!(self.0.run, Run::Made(_))
    }

    /// The candidates for its argument `argument`, `value` typed so far; `None` when it does
    /// not complete that argument.
    pub(crate) fn complete<'a>(
        &'a self,
        argument: &'a str,
        value: &'a str,
        completion: &'a Completion,
    ) -> Option<Candidates<'a>> {
        match &self.0.run {
            Run::Declared(def) => declared(def.completions, argument, value, completion),
            Run::Made(prompt) => self
                .completes()
                .any(|a| a == argument)
                .then(|| prompt.complete(argument, value, completion)),
        }
    }

    /// Its function's parameters (none for a prompt made by hand).
    pub(crate) fn params(&self) -> &'static [ParamDef] {
        match self.0.run {
            Run::Declared(def) => def.params,
            Run::Made(_) => &[],
        }
    }

    /// How long a get may run.
    pub(crate) fn timeout(&self) -> Option<Timeout> {
        self.0.timeout
    }

    /// The invocation of one get with `arguments`: its function with its parameters made (a
    /// `#[prompt]`), or the `Prompt`'s future. A required argument missing is refused first
    /// for a prompt made by hand (a `#[prompt]`'s decoding says so itself).
    pub(crate) fn invoke(&self, arguments: JsonObject, context: &CallContext) -> Invocation {
        match &self.0.run {
            Run::Declared(def) => (def.invoke)(
                Arguments::new(Some(arguments), def.params, &self.0.expected),
                context,
            ),
            Run::Made(prompt) => {
                let missing: Vec<&str> = self
                    .0
                    .listed
                    .arguments
                    .iter()
                    .flatten()
                    .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
                    .map(|a| a.name.as_str())
                    .collect();
                if !missing.is_empty() {
                    return Invocation::Invalid(format!(
                        "missing required argument{} {}",
                        if missing.len() == 1 { "" } else { "s" },
                        missing
                            .iter()
                            .map(|m| format!("'{m}'"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                let get = prompt.get(arguments, context);
                Invocation::Async(Box::pin(async move {
                    match get.await {
                        Ok(messages) => Outcome::Ok(Output::Messages(
                            message::IntoMessages::into_messages(messages),
                        )),
                        Err(error) => Outcome::of_error(&error),
                    }
                }))
            }
        }
    }

    /// The arguments object of a `prompts/get`'s string arguments.
    pub(crate) fn arguments_of(
        &self,
        arguments: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> JsonObject {
        let Some(arguments) = arguments else {
            return JsonObject::new();
        };
        // The protocol's arguments are strings; a client that sends a number or a boolean
        // for one is taken at its word.
        let mut object = JsonObject::new();
        let strings = arguments.iter().filter_map(|(k, v)| match v {
            serde_json::Value::String(s) => Some((k.as_str(), s.clone())),
            other => {
                object.insert(k.clone(), other.clone());
                None
            }
        });
        let strings: Vec<_> = strings.collect();
        object.extend(self.0.strings.object(strings));
        object
    }

    /// Whether both are the one registered item (clones of it).
    pub(crate) fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    pub(crate) fn described(&self) -> String {
        self.0.header.described()
    }
}

impl std::fmt::Debug for PromptInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptInfo")
            .field("name", &self.0.header.name())
            .finish_non_exhaustive()
    }
}

/// The `prompts/list` entry of `header` with `arguments`.
fn listed(header: &Header, arguments: Vec<PromptArgument>) -> McpPrompt {
    let description = header.description();
    let mut listed = McpPrompt::new(
        header.name(),
        (!description.is_empty()).then_some(description),
        (!arguments.is_empty()).then_some(arguments),
    );
    listed.title = header.title().map(str::to_owned);
    if !header.icons().is_empty() {
        listed.icons = Some(
            header
                .icons()
                .iter()
                .map(|src| Icon::new(src.as_str()))
                .collect(),
        );
    }
    listed
}
