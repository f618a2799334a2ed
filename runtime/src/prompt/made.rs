//! A [`PromptInfo`] of a prompt made by hand: its [`PromptDescription`] read once, when it is
//! added, and checked.

use std::sync::Arc;

use super::{Inner, Prompt, PromptDescription, PromptInfo, Run, listed};
use crate::tool::schema;
use crate::tool::strings::StringArgs;

impl PromptInfo {
    /// A prompt made by hand: its description read once and checked (its name, its timeout,
    /// its icons' schemes).
    pub(crate) fn of_prompt(prompt: Arc<dyn Prompt>) -> Result<PromptInfo, String> {
        let PromptDescription {
            about,
            arguments,
            completes,
        } = prompt.describe();
        let name = about.name.as_str();
        if name.is_empty() {
            return Err("a prompt has no name: give it one".to_owned());
        }
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Err(format!(
                "the prompt name \"{}\" holds the control character {c:?}: a name holds none",
                name.escape_debug()
            ));
        }
        let timeout = crate::tool::made_timeout("prompt", name, about.timeout)?;
        let schema = schema::strings_input(arguments.iter().map(|a| {
            (
                a.name.as_str(),
                a.description.as_deref(),
                a.required == Some(true),
            )
        }));
        let header = crate::tool::made_header(about);
        Ok(PromptInfo(Arc::new(Inner {
            listed: listed(&header, arguments),
            strings: StringArgs::of_schema(&schema),
            header,
            timeout,
            schema,
            expected: Arc::from([]),
            completes: completes.into_iter().map(Into::into).collect(),
            run: Run::Made(prompt),
        })))
    }
}
