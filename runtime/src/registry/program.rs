//! The program's registry: every `#[tool]`, `#[resource]` and `#[prompt]` linked in, built
//! once on first use ([`Registry::global`]), or the conflict that prevented it, kept to make an error
//! for each caller.

use std::sync::OnceLock;

use super::Registry;
use super::conflict::Conflict;
use super::resource_prompt_index::ResourcePromptIndex;
use crate::Error;
use crate::tool::ToolRef;
use crate::tool::def::ToolDef;

static REGISTRY: OnceLock<Result<Registry, Conflict>> = OnceLock::new();

impl Registry {
    /// The registry of every `#[tool]` linked into the program, built on first use.
    ///
    /// # Panics
    ///
    /// When two tools share a name; [`Registry::try_global`] returns that as an error instead (and
    /// [`serve_stdio`](crate::serve_stdio) stops startup with it).
    ///
    /// ```
    /// /// How many recipes there are.
    /// #[toolsmith::tool(read_only, closed_world)]
    /// fn count_recipes() -> u64 {
    ///     12
    /// }
    ///
    /// let tool = toolsmith::Registry::global().get("count_recipes").unwrap();
    /// assert_eq!(tool.hints(), toolsmith::Hints::READ_ONLY.closed_world());
    /// ```
    pub fn global() -> &'static Registry {
        Self::try_global().unwrap_or_else(|err| panic!("{err}"))
    }

    /// The registry of every `#[tool]`, `#[resource]` and `#[prompt]`, or the error that
    /// prevents building it (two tools or prompts with one name, two resources with one URI, two
    /// templates that can match one URI: each definition named by `file:line`).
    ///
    /// ```
    /// /// Rate a recipe from 1 to 5.
    /// #[toolsmith::tool(destructive = false, idempotent, closed_world)]
    /// fn rate_recipe(recipe_id: u64, stars: u8) -> String {
    ///     format!("{recipe_id}: {stars} stars")
    /// }
    ///
    /// let registry = toolsmith::Registry::try_global().expect("tool names are unique");
    /// assert!(registry.get("rate_recipe").is_some());
    /// ```
    pub fn try_global() -> Result<&'static Registry, Error> {
        // The program's registry lives as long as the program: its tools are kept.
        let build = || {
            Registry::build(
                inventory::iter::<ToolDef>(),
                ResourcePromptIndex::build(),
                ToolRef::kept,
            )
        };
        match REGISTRY.get_or_init(build) {
            Ok(registry) => Ok(registry),
            Err(conflict) => Err(Conflict {
                tool: conflict.tool.clone(),
                what: conflict.what.clone(),
                first: conflict.first.clone(),
                second: conflict.second.clone(),
                fix: conflict.fix,
            }
            .into_error()),
        }
    }
}
