//! The registry's prompts made by hand: added, removed, listed and found by name (checked
//! for conflicts with the others in `resource_prompt_index.rs`).

use std::sync::Arc;

use super::{Conflict, Registry};
use crate::Error;
use crate::prompt::{Prompt, PromptInfo};

impl Registry {
    /// Adds a prompt made by hand (see [`Prompt`]). An error when its name is taken (naming
    /// both), or its declaration is not valid.
    ///
    /// ```
    /// # use toolsmith::rmcp::model::JsonObject;
    /// # use toolsmith::{CallContext, prompt::Prompt, prompt::PromptDescription, prompt::PromptFuture, prompt::PromptMessage, Registry};
    /// struct Greet;
    /// impl Prompt for Greet {
    ///     fn describe(&self) -> PromptDescription {
    ///         PromptDescription::new("greet")
    ///     }
    ///     fn get(&self, _: JsonObject, _: &CallContext) -> PromptFuture {
    ///         Box::pin(async { Ok(vec![PromptMessage::user("Say hello.")]) })
    ///     }
    /// }
    ///
    /// let mut registry = Registry::new();
    /// registry.add_prompt(Greet).unwrap();
    /// let err = registry.add_prompt(Greet).unwrap_err();
    /// assert!(err.to_string().contains("two prompts are named 'greet'"), "{err}");
    /// ```
    pub fn add_prompt(&mut self, prompt: impl Prompt) -> Result<(), Error> {
        let info =
            PromptInfo::of_prompt(Arc::new(prompt)).map_err(|why| Error::config("prompt", why))?;
        self.resources_and_prompts = self
            .resources_and_prompts
            .with_prompt(info)
            .map_err(Conflict::into_error)?;
        Ok(())
    }

    /// `self` with the prompt added (see [`Registry::add_prompt`]).
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
    /// let registry = Registry::new().with_prompt(Greet).unwrap();
    /// assert!(registry.prompt("greet").unwrap().is_dynamic());
    /// ```
    pub fn with_prompt(mut self, prompt: impl Prompt) -> Result<Registry, Error> {
        self.add_prompt(prompt)?;
        Ok(self)
    }

    /// Removes the prompt named `name`, and returns it (`None` when there is none).
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
    /// let mut registry = Registry::new().with_prompt(Greet).unwrap();
    /// assert_eq!(registry.remove_prompt("greet").unwrap().name(), "greet");
    /// assert!(registry.prompt("greet").is_none());
    /// assert!(registry.remove_prompt("greet").is_none());
    /// ```
    pub fn remove_prompt(&mut self, name: &str) -> Option<PromptInfo> {
        let (rest, removed) = self.resources_and_prompts.without_prompt(name)?;
        self.resources_and_prompts = rest;
        Some(removed)
    }

    /// Every prompt, sorted by name.
    ///
    /// ```
    /// /// Suggest a recipe for what is in the fridge.
    /// #[toolsmith::prompt]
    /// fn suggest_recipe() -> String {
    ///     "Suggest a recipe for what is in my fridge.".into()
    /// }
    ///
    /// /// Plan the week's meals.
    /// #[toolsmith::prompt]
    /// fn plan_meals() -> String {
    ///     "Plan my meals for the week.".into()
    /// }
    ///
    /// let registry = toolsmith::Registry::from_module(module_path!()).unwrap();
    /// let names: Vec<&str> = registry.prompts().iter().map(|p| p.name()).collect();
    /// assert_eq!(names, ["plan_meals", "suggest_recipe"]);
    /// ```
    pub fn prompts(&self) -> &[PromptInfo] {
        &self.resources_and_prompts.prompts
    }

    /// The prompt named `name`.
    ///
    /// ```
    /// /// Write a shopping list for a recipe.
    /// #[toolsmith::prompt(title = "Shopping list")]
    /// fn shopping_list(recipe: String) -> String {
    ///     format!("Write a shopping list for {recipe}.")
    /// }
    ///
    /// let registry = toolsmith::Registry::global();
    /// assert_eq!(registry.prompt("shopping_list").unwrap().header().title(), Some("Shopping list"));
    /// assert!(registry.prompt("no such prompt").is_none());
    /// ```
    pub fn prompt(&self, name: &str) -> Option<&PromptInfo> {
        self.resources_and_prompts
            .by_name
            .get(name)
            .map(|&i| &self.resources_and_prompts.prompts[i])
    }
}
