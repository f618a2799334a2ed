//! What `#[prompt]` generates: a static [`PromptDef`] per prompt, registered through
//! `inventory`. Not a public API (reached through `__private`).

use crate::complete::CompleteDef;
use crate::context::CallContext;
use crate::tool::args::Arguments;
use crate::tool::param::{Invocation, ParamDef, Timeout};

/// One prompt as `#[prompt]` declares it.
#[doc(hidden)]
pub struct PromptDef {
    pub name: &'static str,
    pub rust_path: &'static str,
    pub file: &'static str,
    pub line: u32,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub icons: &'static [&'static str],
    /// `scopes = [...]`: what a caller needs instead of the read scope.
    pub scopes: &'static [&'static str],
    /// Every parameter: the prompt's arguments and context parameters.
    pub params: &'static [ParamDef],
    pub timeout: Option<Timeout>,
    pub completions: &'static [CompleteDef],
    pub invoke: for<'a> fn(Arguments<'a>, &CallContext) -> Invocation,
}

inventory::collect!(PromptDef);
