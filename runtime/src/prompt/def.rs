//! What `#[prompt]` generates: a static [`PromptDef`] per prompt, registered through
//! `inventory`. Not a public API (reached through `__private`).

use crate::complete::CompleteDef;
use crate::context::CallContext;
use crate::item::ItemDef;
use crate::tool::args::Arguments;
use crate::tool::param::{Invocation, ParamDef, Timeout};

/// One prompt as `#[prompt]` declares it.
#[doc(hidden)]
pub struct PromptDef {
    /// What every item has: name, title, description, icons, scopes (what a caller needs
    /// instead of the read scope), where it is declared.
    pub item: ItemDef,
    /// Every parameter: the prompt's arguments and context parameters.
    pub params: &'static [ParamDef],
    pub timeout: Option<Timeout>,
    pub completions: &'static [CompleteDef],
    pub invoke: for<'a> fn(Arguments<'a>, &CallContext) -> Invocation,
}

inventory::collect!(PromptDef);
