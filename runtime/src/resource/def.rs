//! What `#[resource]` generates: a static [`ResourceDef`] per resource or template,
//! registered through `inventory`. Not a public API (reached through `__private`).

use crate::complete::CompleteDef;
use crate::context::CallContext;
use crate::item::ItemDef;
use crate::tool::args::Arguments;
use crate::tool::param::{Invocation, ParamDef, Timeout};

/// One resource (a URI without variables) or resource template, as `#[resource]` declares
/// it.
#[doc(hidden)]
pub struct ResourceDef {
    /// What every item has: its programmatic name (default: the function's), title,
    /// description, icons, scopes (what a caller needs instead of the read scope), where.
    pub item: ItemDef,
    /// The URI, or the URI template (RFC 6570 `{var}` / `{+var}`), checked by the macro.
    pub uri: &'static str,
    pub mime_type: Option<&'static str>,
    /// `audience = ["user", "assistant"]`, checked by the macro.
    pub audience: &'static [&'static str],
    /// `priority = 0.0..=1.0`, checked by the macro.
    pub priority: Option<f32>,
    /// Every parameter: the template's variables and context parameters.
    pub params: &'static [ParamDef],
    pub timeout: Option<Timeout>,
    pub completions: &'static [CompleteDef],
    pub invoke: for<'a> fn(Arguments<'a>, &CallContext) -> Invocation,
}

inventory::collect!(ResourceDef);
