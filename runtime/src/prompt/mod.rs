//! What a prompt is: the static definition `#[prompt]` generates, [`PromptInfo`], a
//! registered prompt with its `prompts/list` entry and the schema of its arguments, and what
//! a prompt returns (`message.rs`). Nothing here knows how prompts are served.

pub(crate) mod def;
mod message;

use std::sync::Arc;

use rmcp::model::{Icon, JsonObject, Prompt, PromptArgument};

use crate::item::Header;
use crate::tool::schema;
use crate::tool::strings::StringArgs;
use def::PromptDef;

#[doc(hidden)]
pub use message::{IntoMessages, PromptFallback, Prompted, assert_messages};
pub use message::{PromptMessage, Role};

/// A registered prompt.
///
/// ```
/// for prompt in toolsmith::registry().prompts() {
///     println!("{}: {}", prompt.name(), prompt.header().description());
/// }
/// ```
#[derive(Clone)]
pub struct PromptInfo(Arc<Inner>);

/// What a [`PromptInfo`] holds, made once and shared by its clones (a request holds one).
struct Inner {
    def: &'static PromptDef,
    header: Header,
    schema: JsonObject,
    expected: Arc<[String]>,
    strings: StringArgs,
    listed: Prompt,
}

impl PromptInfo {
    pub(crate) fn new(def: &'static PromptDef) -> PromptInfo {
        let (schema, expected) = schema::input(def.params);
        let strings = StringArgs::of_schema(&schema);
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
        let item = &def.item;
        let mut listed = Prompt::new(
            item.name,
            (!item.description.is_empty()).then_some(item.description),
            (!arguments.is_empty()).then_some(arguments),
        );
        listed.title = item.title.map(str::to_owned);
        if !item.icons.is_empty() {
            listed.icons = Some(item.icons.iter().map(|src| Icon::new(*src)).collect());
        }
        PromptInfo(Arc::new(Inner {
            def,
            header: Header::of_def(item),
            schema,
            expected: expected.into(),
            strings,
            listed,
        }))
    }

    /// Its name (default: the function's name): its [`header`](Self::header)'s.
    ///
    /// ```
    /// assert!(toolsmith::registry().prompts().iter().all(|p| !p.name().is_empty()));
    /// ```
    pub fn name(&self) -> &str {
        self.0.header.name()
    }

    /// What it has in common with tools and resources: name, title, description, icons, the
    /// scopes `scopes = [...]` names instead of the read scope, where it is declared.
    ///
    /// ```
    /// for p in toolsmith::registry().prompts() {
    ///     assert!(p.header().location().contains(':'));
    /// }
    /// ```
    pub fn header(&self) -> &Header {
        &self.0.header
    }

    /// The JSON Schema of its arguments (what `schema NAME` prints), as for a tool's input.
    ///
    /// ```
    /// # for p in toolsmith::registry().prompts() { assert_eq!(p.arguments_schema()["type"], "object"); }
    /// ```
    pub fn arguments_schema(&self) -> &JsonObject {
        &self.0.schema
    }

    /// The arguments that have a completion (`complete(arg = fn)`).
    ///
    /// ```
    /// # for p in toolsmith::registry().prompts() { let _ = p.completes().count(); }
    /// ```
    pub fn completes(&self) -> impl Iterator<Item = &'static str> {
        self.0.def.completions.iter().map(|c| c.argument)
    }

    /// Its `prompts/list` entry.
    ///
    /// ```
    /// # for p in toolsmith::registry().prompts() { assert_eq!(p.mcp_prompt().name, p.name()); }
    /// ```
    pub fn mcp_prompt(&self) -> &Prompt {
        &self.0.listed
    }

    pub(crate) fn def(&self) -> &'static PromptDef {
        self.0.def
    }

    pub(crate) fn expected(&self) -> &Arc<[String]> {
        &self.0.expected
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
